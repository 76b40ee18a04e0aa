import Testing

@testable import ArenaGame

@Suite("ArenaRenderer")
struct ArenaRendererTests {
    static func scene() -> ArenaScene {
        var scene = ArenaScene(map: .standard)
        scene.players = [
            .init(id: 1, name: "me", x: 10.5, y: 1.5, heading: 0, health: 100, score: 2, isBot: false),
            .init(id: 2, name: "bot1", x: 20.5, y: 18.5, heading: Double.pi, health: 40, score: 5, isBot: true),
        ]
        scene.bullets = [.init(x: 12.2, y: 1.7)]
        scene.localPlayerID = 1
        scene.roomName = "main"
        scene.connectionStatus = "connected"
        scene.isConnected = true
        return scene
    }

    @Test("at 80×24 the whole map, the players, a bullet, the scoreboard and the HUD are visible")
    func standardTerminal() {
        let frame = ArenaRenderer.render(Self.scene(), width: 80, height: 24)
        let lines = frame.plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 24)
        #expect(lines[0].hasPrefix("##########################################################"))
        #expect(lines[1].dropFirst(10).first == ">", "the local player faces right at column 10")
        #expect(lines[1].dropFirst(12).first == "*", "the bullet is at column 12")
        #expect(lines[18].dropFirst(20).first == "<", "the bot faces left")
        #expect(lines[0].contains("main"))
        #expect(lines[2].contains("~bot1") && lines[3].contains("me"), "the scoreboard ranks by kills")
        #expect(lines[20].contains("HP") && lines[20].contains("connected"))
        #expect(lines[21].contains("q quit"))
    }

    @Test("a small terminal shows the part of the map around the local player, without crashing")
    func smallTerminal() {
        var scene = Self.scene()
        scene.players[0].x = 50.5
        scene.players[0].y = 15.5
        let frame = ArenaRenderer.render(scene, width: 40, height: 12)
        #expect(frame.width == 40 && frame.height == 12)
        #expect(frame.plainText.contains(">"), "the local player stays in view")
        for size in [(1, 1), (0, 0), (5, 3), (200, 60)] {
            _ = ArenaRenderer.render(scene, width: size.0, height: size.1)
        }
    }

    @Test("the net graph overlay shows its lines when toggled on")
    func netGraph() {
        var scene = Self.scene()
        scene.netGraph = ["ping 42 ms", "jitter 3 ms"]
        #expect(!ArenaRenderer.render(scene, width: 80, height: 24).plainText.contains("ping 42 ms"))
        scene.showsNetGraph = true
        #expect(ArenaRenderer.render(scene, width: 80, height: 24).plainText.contains("| ping 42 ms"))
    }
}
