"""Speech and video: offline English recognition (PocketSphinx) and frame extraction (ffmpeg)."""

from paperworks.tools.speech_rec.media import decode_pcm, extract_frames
from paperworks.tools.speech_rec.recognize import Transcript, transcribe

__all__ = ["Transcript", "decode_pcm", "extract_frames", "transcribe"]
