"""The evidence files: which inbox files belong to which dispute (files), what kind each is
(kinds), and what each says (reading, with doctext, podtext, policytext): its text read by a
worker process, and the facts read from it (facts). Pure code over files, no state, no network."""
