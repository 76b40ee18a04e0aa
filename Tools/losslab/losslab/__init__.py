"""The loss lab: real loss, delay, jitter, reordering and duplication under the kernel's own
TCP and UDP, between two network namespaces joined by a relay of TUN devices. See README.md."""
from .impairment import Channel, Fate, GilbertElliott, Impairment
from .lab import Lab, LabError, availability, clean_stale, known_names, relay_pid_of, remove

__all__ = ["Channel", "Fate", "GilbertElliott", "Impairment", "Lab", "LabError", "availability", "clean_stale",
           "known_names", "relay_pid_of", "remove"]
