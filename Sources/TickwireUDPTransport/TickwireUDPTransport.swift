// The UDP transport speaks of netcode.io's connect tokens and keys and of the event loop's
// addresses in its public API: re-export both, as TickwireWebSocket re-exports TickwireIO.
@_exported import TickwireIO
@_exported import TickwireNetcode
