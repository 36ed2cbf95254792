// The voxmem page: a Realtime client in plain JS. Microphone -> AudioWorklet (PCM16 at
// 24 kHz) -> websocket; reply audio -> scheduled playback, stopped at once when the
// server hears the user start speaking (barge-in); transcript with who spoke and how;
// recalled turns with a button that plays each original clip.
const RATE = 24000;
const $ = (id) => document.getElementById(id);
const state = {
  ws: null, token: "", ctx: null, mic: null, node: null,
  playing: [], nextTime: 0, current: null, chunks: 0, peak: 0, // current: {itemId, startedAt, scheduledMs}
  agentRows: new Map(), userRows: new Map(),
};
window.voxmem = state; // for tests and the curious

function status(text) { $("status").textContent = text; }
function log(text) { const el = $("log"); el.textContent = (text + "\n" + el.textContent).slice(0, 4000); }

function b64FromPcm(buffer) {
  const bytes = new Uint8Array(buffer);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
function pcmFromB64(text) {
  const raw = atob(text);
  const out = new Int16Array(raw.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (raw.charCodeAt(2 * i) | (raw.charCodeAt(2 * i + 1) << 8)) << 16 >> 16;
  return out;
}

function send(event) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(event));
}

function audioContext() {
  if (!state.ctx) state.ctx = new AudioContext();
  if (state.ctx.state === "suspended") state.ctx.resume();
  return state.ctx;
}

// -- connection -----------------------------------------------------------------------
function connect() {
  state.token = $("token").value.trim();
  if (!state.token) { status("enter an access token"); return; }
  localStorage.setItem("voxmem-token", state.token);
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/realtime`;
  // browsers cannot set an Authorization header on a websocket: the token rides as a subprotocol
  const ws = new WebSocket(url, ["realtime", `openai-insecure-api-key.${state.token}`]);
  state.ws = ws;
  status("connecting...");
  ws.onopen = () => { status("connected"); $("mic").disabled = false; $("send").disabled = false; };
  ws.onclose = (e) => {
    status(`disconnected${e.code !== 1000 && e.code !== 1005 ? ` (${e.code}${e.reason ? ": " + e.reason : ""})` : ""}`);
    $("mic").disabled = true; $("send").disabled = true; stopMic();
  };
  ws.onerror = () => status("could not connect (is the token right?)");
  ws.onmessage = (msg) => onEvent(JSON.parse(msg.data));
}

// -- microphone ------------------------------------------------------------------------
async function startMic() {
  const ctx = audioContext();
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  await ctx.audioWorklet.addModule("/capture-worklet.js");
  const source = ctx.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(ctx, "pcm-capture", { processorOptions: { targetRate: RATE, chunkMs: 100 } });
  node.port.onmessage = (e) => {
    const pcm = new Int16Array(e.data);
    let peak = 0;
    for (let i = 0; i < pcm.length; i++) peak = Math.max(peak, Math.abs(pcm[i]));
    state.chunks += 1; state.peak = peak / 32768; // what the microphone is sending, for the curious
    send({ type: "input_audio_buffer.append", audio: b64FromPcm(e.data) });
  };
  source.connect(node);
  // keep the graph pulling without making the microphone audible
  const mute = ctx.createGain(); mute.gain.value = 0; node.connect(mute).connect(ctx.destination);
  state.mic = stream; state.node = node;
  $("mic").textContent = "Stop microphone"; $("mic").classList.add("on");
  status(`listening (capture at ${ctx.sampleRate} Hz, sent at ${RATE} Hz)`);
}
function stopMic() {
  if (state.mic) state.mic.getTracks().forEach((t) => t.stop());
  if (state.node) state.node.disconnect();
  state.mic = null; state.node = null;
  $("mic").textContent = "Start microphone"; $("mic").classList.remove("on");
}

// -- playback and barge-in ----------------------------------------------------------------
function play(itemId, pcm) {
  const ctx = audioContext();
  const buf = ctx.createBuffer(1, pcm.length, RATE);
  const ch = buf.getChannelData(0);
  for (let i = 0; i < pcm.length; i++) ch[i] = pcm[i] / 32768;
  const src = ctx.createBufferSource();
  src.buffer = buf; src.connect(ctx.destination);
  const at = Math.max(ctx.currentTime + 0.02, state.nextTime);
  if (!state.current || state.current.itemId !== itemId) state.current = { itemId, startedAt: at, scheduledMs: 0 };
  src.start(at);
  state.nextTime = at + buf.duration;
  state.current.scheduledMs += buf.duration * 1000;
  state.playing.push(src);
  src.onended = () => { state.playing = state.playing.filter((s) => s !== src); };
}
function playedMs() {
  const c = state.current;
  if (!c || !state.ctx) return 0;
  return Math.max(0, Math.min(c.scheduledMs, (state.ctx.currentTime - c.startedAt) * 1000));
}
function bargeIn() {
  if (!state.playing.length || !state.current) return;
  const played = Math.floor(playedMs());
  state.playing.forEach((s) => { try { s.stop(); } catch (_) { /* already stopped */ } });
  state.playing = []; state.nextTime = 0;
  send({ type: "conversation.item.truncate", item_id: state.current.itemId, content_index: 0, audio_end_ms: played });
  log(`barge-in: stopped the reply after ${played} ms`);
  state.current = null;
}

// -- the conversation ---------------------------------------------------------------------
function row(kind, who) {
  const el = document.createElement("div");
  el.className = `turn ${kind}`;
  const w = document.createElement("span"); w.className = "who"; w.textContent = who;
  const t = document.createElement("span"); t.className = "text";
  const tags = document.createElement("span"); tags.className = "tags";
  el.append(w, t, tags);
  $("transcript").append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}
function tag(parent, text, cls) {
  const el = document.createElement("span"); el.className = `tag ${cls || ""}`; el.textContent = text; parent.append(el);
}
function top(labels, n) {
  return Object.entries(labels || {}).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k]) => k);
}

function onEvent(e) {
  switch (e.type) {
    case "session.created":
      status(`connected as ${e.session.voxmem.tenant}`); break;
    case "input_audio_buffer.speech_started":
      bargeIn(); status("hearing you..."); break;
    case "input_audio_buffer.speech_stopped":
      status("thinking..."); break;
    case "conversation.item.added":
      if (e.item.role === "user" && e.item.content[0] && e.item.content[0].type === "input_text") {
        const r = row("user", "you (typed)"); r.querySelector(".text").textContent = e.item.content[0].text;
      }
      break;
    case "conversation.item.input_audio_transcription.completed": {
      const who = e.speaker_name || (e.speaker_id ? `voice ${e.speaker_id.slice(0, 8)}` : "new voice");
      const r = row("user", who);
      r.dataset.item = e.item_id;
      r.querySelector(".text").textContent = e.transcript;
      const tags = r.querySelector(".tags");
      top(e.style, 2).forEach((s) => tag(tags, s));
      top(e.environment, 2).forEach((s) => tag(tags, s, "env"));
      break;
    }
    case "conversation.item.input_audio_transcription.failed": {
      const r = row("user", "?"); r.querySelector(".text").textContent = `(${e.error.message})`; break;
    }
    case "response.output_audio_transcript.delta":
    case "response.output_text.delta": {
      let r = state.agentRows.get(e.item_id);
      if (!r) { r = row("agent", "agent"); r.dataset.item = e.item_id; state.agentRows.set(e.item_id, r); }
      r.querySelector(".text").textContent += e.delta;
      break;
    }
    case "response.output_audio.delta":
      play(e.item_id, pcmFromB64(e.delta)); break;
    case "memory.retrieval.completed":
      showHits(e); break;
    case "response.done": {
      const r = state.agentRows.get(e.response.output[0] && e.response.output[0].id);
      if (r && e.response.status === "cancelled") tag(r.querySelector(".tags"), "interrupted");
      const lat = e.response.voxmem && e.response.voxmem.latency;
      if (lat && lat.speech_end_to_first_audio_ms !== undefined) status(`first audio ${Math.round(lat.speech_end_to_first_audio_ms)} ms after you stopped`);
      else status("ready");
      break;
    }
    case "error":
      log(`${e.error.code}: ${e.error.message}`); break;
    default:
      break;
  }
}

function showHits(e) {
  const box = $("recalled");
  box.textContent = "";
  const plan = document.createElement("p"); plan.className = "evidence"; plan.textContent = `plan: ${e.plan || e.intent}`;
  box.append(plan);
  if (!e.hits.length) { const p = document.createElement("p"); p.textContent = "nothing found"; box.append(p); }
  for (const h of e.hits) {
    const el = document.createElement("div"); el.className = "hit"; el.dataset.turn = h.turn_id;
    const who = document.createElement("div");
    const name = document.createElement("span"); name.className = "who";
    name.textContent = h.speaker_name || (h.role === "agent" ? "agent" : `voice ${String(h.speaker_id || "?").slice(0, 8)}`);
    const btn = document.createElement("button"); btn.className = "play"; btn.textContent = "▶ play";
    btn.onclick = () => playTurn(h.turn_id, btn);
    who.append(name, btn);
    const text = document.createElement("div"); text.className = "text"; text.textContent = h.transcript;
    const ev = document.createElement("div"); ev.className = "evidence";
    ev.textContent = `score ${h.score.toFixed(2)} · ` + Object.entries(h.evidence || {})
      .map(([k, v]) => `${k} ${Number(v.raw).toFixed(2)}${v.matched ? " ✓" : ""}`).join(", ");
    el.append(who, text, ev);
    box.append(el);
  }
}

async function playTurn(turnId, btn) {
  btn.disabled = true;
  try {
    const r = await fetch(`/v1/memory/turns/${encodeURIComponent(turnId)}/audio`, {
      headers: { Authorization: `Bearer ${state.token}` },
    });
    if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
    const clip = new Audio(URL.createObjectURL(await r.blob()));
    clip.onended = () => { btn.disabled = false; };
    await clip.play();
    btn.dataset.played = "1";
  } catch (err) {
    log(`could not play ${turnId}: ${err.message}`); btn.disabled = false;
  }
}

// -- wiring ----------------------------------------------------------------------------------
$("token").value = new URLSearchParams(location.hash.slice(1)).get("token") || localStorage.getItem("voxmem-token") || "";
$("connect").onclick = connect;
$("mic").onclick = () => (state.mic ? stopMic() : startMic().catch((err) => log(`microphone: ${err.message}`)));
$("say").onsubmit = (ev) => {
  ev.preventDefault();
  const text = $("text").value.trim();
  if (!text) return;
  send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text }] } });
  send({ type: "response.create" });
  $("text").value = "";
};
if (new URLSearchParams(location.hash.slice(1)).get("autoconnect")) connect();
