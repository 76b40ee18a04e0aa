/// The arena's walls: a fixed grid of tiles, one terminal cell each.
package struct ArenaMap: Hashable, Sendable {
    /// Columns of tiles.
    package let width: Int
    /// Rows of tiles.
    package let height: Int
    private let walls: [Bool]

    /// The standard arena: 58×20 tiles with a border, pillars and cover, so it fits an
    /// 80×24 terminal beside a scoreboard.
    package static let standard = ArenaMap(layout: [
        "##########################################################",
        "#                                                        #",
        "#   ####          #                    #          ####   #",
        "#   #             #                    #             #   #",
        "#                 #        ####        #                 #",
        "#        ##                                    ##        #",
        "#        ##           #            #           ##        #",
        "#                     #            #                     #",
        "#   ######            #            #            ######   #",
        "#                          ####                          #",
        "#                          ####                          #",
        "#   ######            #            #            ######   #",
        "#                     #            #                     #",
        "#        ##           #            #           ##        #",
        "#        ##                                    ##        #",
        "#                 #        ####        #                 #",
        "#   #             #                    #             #   #",
        "#   ####          #                    #          ####   #",
        "#                                                        #",
        "##########################################################",
    ])

    /// Creates a map from rows of text, `#` for a wall and anything else for floor.
    ///
    /// - Parameter layout: Rows of equal length (shorter rows are padded with floor).
    package init(layout: [String]) {
        height = layout.count
        width = layout.map(\.count).max() ?? 0
        var walls = [Bool](repeating: false, count: width * height)
        for (row, line) in layout.enumerated() {
            for (column, character) in line.enumerated() where character == "#" {
                walls[row * width + column] = true
            }
        }
        self.walls = walls
    }

    /// Whether the tile at a column and row is a wall; everything outside the map is.
    package func isWall(column: Int, row: Int) -> Bool {
        guard column >= 0, column < width, row >= 0, row < height else { return true }
        return walls[row * width + column]
    }

    /// Whether a point in tile units lies inside a wall (a tile spans `[c, c+1) × [r, r+1)`).
    package func isWall(x: Double, y: Double) -> Bool {
        isWall(column: Int(x.rounded(.down)), row: Int(y.rounded(.down)))
    }

    /// Whether a circle of `radius` centred at a point touches a wall.
    package func isBlocked(x: Double, y: Double, radius: Double) -> Bool {
        isWall(x: x - radius, y: y - radius) || isWall(x: x + radius, y: y - radius)
            || isWall(x: x - radius, y: y + radius) || isWall(x: x + radius, y: y + radius)
    }

    /// Whether the straight line between two points crosses no wall (sampled every quarter tile).
    package func hasLineOfSight(fromX x0: Double, y y0: Double, toX x1: Double, y y1: Double) -> Bool {
        let distance = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
        let steps = max(Int(distance * 4), 1)
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            if isWall(x: x0 + (x1 - x0) * t, y: y0 + (y1 - y0) * t) { return false }
        }
        return true
    }

    /// The centres of every floor tile, in row order: candidate spawn points.
    package var floorCentres: [(x: Double, y: Double)] {
        var result: [(x: Double, y: Double)] = []
        for row in 0..<height {
            for column in 0..<width where !isWall(column: column, row: row) {
                result.append((Double(column) + 0.5, Double(row) + 0.5))
            }
        }
        return result
    }
}
