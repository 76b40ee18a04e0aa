// The umbrella module: `import Tickwire` brings in every layer a game needs.
@_exported import TickwireCodec
@_exported import TickwireFoundation
@_exported import TickwireIO
@_exported import TickwireMatchmaker
@_exported import TickwireRedis
@_exported import TickwireSim
@_exported import TickwireTokens
@_exported import TickwireUDPTransport
@_exported import TickwireWebSocket
@_exported import TickwireWebSocketTransport
@_exported import TickwireZlib
