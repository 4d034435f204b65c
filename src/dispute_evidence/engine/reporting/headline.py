"""A run's outcome in a few words ("5 sent · 3 need you"): the line its report, its runs row
and the Prefect UI show, read from the run's counts (engine/reporting/report.py)."""

from __future__ import annotations

from dispute_evidence.engine.delivery.submit import SubmitOutcome


def stop_words(submitted: SubmitOutcome | None) -> str | None:
    if not (submitted and submitted.stopped):
        return None
    return f"stopped: {submitted.stop}"  # exits.py's Stop says why in a few words


def headline(counts: dict[str, int], dry_run: bool, *, stopped: str | None = None) -> str:
    """What happened, in a few words: "5 sent · 3 need you"; never "ok" above open problems."""
    parts = []
    if stopped:
        parts.append(stopped)
    if dry_run:
        parts += [
            f"would send {counts.get('would_send', 0)}",
            f"would upload {counts.get('would_upload', 0)} file(s)",
        ]
    else:
        parts.append(f"{counts.get('evidence_sent', 0)} sent")
        if counts.get("files_uploaded"):
            parts.append(f"{counts['files_uploaded']} file(s) uploaded")
        if counts.get("files_found_at_api"):  # not uploaded by this run: found at the API
            parts.append(f"{counts['files_found_at_api']} file(s) already at the API")
    if held := counts.get("awaiting_approval"):
        parts.append(f"{held} wait for approval")
    need, unread = counts.get("need_you", 0), counts.get("not_read_yet", 0)
    if need:
        parts.append(f"{need} need you")
    if unread:  # never "nothing needs you" above files left unread
        parts.append(f"{unread} file(s) not read yet (still being written)")
    elif not need:
        parts.append("nothing needs you")
    return " · ".join(parts)


__all__ = ["headline", "stop_words"]
