import ArenaGame

// `arena`: the terminal multiplayer demo. Thin: parse arguments, call ArenaGame.
print("arena: coming with the simulation layer")
