// Connect tokens for every transport. The issuer's and the verifier's API speaks netcode.io's
// types (`NetcodeKey`, `NetcodeAddress`, `ConnectToken`), so a game imports this module alone.
@_exported import TickwireNetcode
