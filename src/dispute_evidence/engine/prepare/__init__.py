"""Prepare: the inbox taken in (build: ingest and payloads), each dispute's case as the state
holds it (case, api_views), the generated PDFs, what a night rebuilds, store documents, and
retention. The first stage: it imports no other room of the engine."""
