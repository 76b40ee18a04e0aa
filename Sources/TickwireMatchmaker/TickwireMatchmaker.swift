// TickwireMatchmaker: the matchmaker over HTTP (`Protocol/MATCHMAKER.md`). The service answers
// `POST /matchmake/…` and `GET /rooms` on a WebSocket server's HTTP port, reserving seats in a
// room directory and minting the connect token for each; the client asks it for a seat and
// connects there.
