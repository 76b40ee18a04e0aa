import TickwireCodec

// Prediction of the local player: reconciling with each authoritative snapshot and the
// displayed (smoothed) local entity.
extension ClientSession {
    func reconcile(with snapshot: Snapshot, lastProcessed: UInt32) {
        guard let me = clientID else { return }
        let authoritative = game.restore(from: snapshot)
        guard game.entityID(of: me, in: authoritative) != nil else {
            predictedState = nil
            return
        }
        let before = predictedState.flatMap { localEntity(in: $0) }
        let dt = 1 / Double(tickRate)
        var replay = prediction
        let reconciled = replay.reconcile(authoritative: authoritative, lastProcessed: lastProcessed) { state, input in
            game.step(state, inputs: [me: input], dt: dt)
        }
        predictedState = reconciled
        if let before, let after = localEntity(in: reconciled), before.typeIndex == after.typeIndex {
            let kinds = game.schema.entityTypes[after.typeIndex].fields.map(\.kind)
            smoother.correct(from: before.values, to: after.values, kinds: kinds, threshold: 1e-6)
        }
    }

    /// Reads the local player's entity of a (predicted) world into ``localCapture``, through the
    /// game's ``Game/captureEntity(of:in:into:)``.
    ///
    /// - Parameter state: The world.
    /// - Returns: Whether the local player has an entity there (and it could be written).
    func captureLocalEntity(in state: G.State) -> Bool {
        guard let me = clientID else { return false }
        do {
            return try game.captureEntity(of: me, in: state, into: &localCapture)
        } catch {
            // Asked every render frame: debug, not louder; the host logs the same failure at error.
            configuration.logSink.log(
                .debug, "could not capture the local player's predicted entity", metadata: ["error": "\(error)"], source: "client")
            return false
        }
    }

    /// The local player's entity in a (predicted) world, quantized as a snapshot would carry it.
    func localEntity(in state: G.State) -> EntityView? {
        guard captureLocalEntity(in: state) else { return nil }
        let entity = localCapture
        return EntityView(id: entity.id, typeIndex: entity.typeIndex, values: (0..<entity.fieldCount).map { entity.double(field: $0) })
    }

    /// The predicted local player as it is displayed (prediction plus the decaying correction offset).
    public var predictedLocalEntity: EntityView? {
        guard let state = predictedState, captureLocalEntity(in: state) else { return nil }
        // One read of the stored entity: each access to the property would copy it (and retain its schema).
        let entity = localCapture
        let fields = entity.schema.entityTypes[entity.typeIndex].fields
        // The one allocation of the frame: the values the returned view owns.
        var values = [Double](repeating: 0, count: fields.count)
        for field in values.indices { values[field] = entity.double(field: field) }
        smoother.display(&values, kinds: fields.lazy.map(\.kind))
        return EntityView(id: entity.id, typeIndex: entity.typeIndex, values: values)
    }
}
