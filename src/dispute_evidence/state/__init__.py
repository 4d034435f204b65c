"""The state store in parts; state.store composes them into StateStore."""
