// Microphone capture in the audio thread: the context runs at whatever rate the browser
// chose (often 48 kHz), so resampling to the session's rate happens here, not by asking
// for a sample rate the browser may refuse. Posts Int16 PCM chunks of about 100 ms.
class PcmCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const opts = (options && options.processorOptions) || {};
    this.target = opts.targetRate || 24000;
    this.step = sampleRate / this.target; // input samples per output sample
    this.pos = 0; // fractional read position into the pending input
    this.pending = new Float32Array(0);
    this.size = Math.round(this.target * (opts.chunkMs || 100) / 1000);
    this.chunk = new Int16Array(this.size);
    this.filled = 0;
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const mono = input[0];
    const joined = new Float32Array(this.pending.length + mono.length);
    joined.set(this.pending);
    joined.set(mono, this.pending.length);
    // average over the step (a box low-pass) then interpolate: no aliasing whine on 48k -> 24k
    const width = Math.max(1, Math.floor(this.step));
    let pos = this.pos;
    while (pos + width + 1 < joined.length) {
      const i = Math.floor(pos);
      const frac = pos - i;
      let a = 0, b = 0;
      for (let k = 0; k < width; k++) { a += joined[i + k]; b += joined[i + k + 1]; }
      const v = (a * (1 - frac) + b * frac) / width;
      this.chunk[this.filled++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
      if (this.filled === this.size) {
        // the buffer is transferred (and detached here), so a fresh one follows
        this.port.postMessage(this.chunk.buffer, [this.chunk.buffer]);
        this.chunk = new Int16Array(this.size);
        this.filled = 0;
      }
      pos += this.step;
    }
    const keep = Math.floor(pos);
    this.pending = joined.slice(keep);
    this.pos = pos - keep;
    return true;
  }
}
registerProcessor("pcm-capture", PcmCapture);
