"""voxmem.agent: the spoken dialogue agent (LangGraph), responders and TTS."""
