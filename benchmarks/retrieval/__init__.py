"""Retrieval benchmarks (INSPIRE, VoiceTrace, SQuTR): real-format loaders, offline mini
editions written in the same formats, runs over every retriever, reports and plots."""
