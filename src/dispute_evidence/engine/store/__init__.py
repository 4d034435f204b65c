"""The state store in parts; engine.state composes them into StateStore."""
