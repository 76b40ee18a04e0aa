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

    /// The local player's entity in a (predicted) world, quantized as a snapshot would carry it.
    func localEntity(in state: G.State) -> EntityView? {
        guard let me = clientID, let id = game.entityID(of: me, in: state) else { return nil }
        var snapshot = Snapshot(schema: game.schema, tick: 0)
        do {
            try game.capture(state, into: &snapshot)
        } catch {
            // Asked every render frame: debug, not louder; the host logs the same failure at error.
            configuration.logSink.log(
                .debug, "could not capture the predicted world", metadata: ["error": "\(error)"], source: "client")
            return nil
        }
        guard let index = snapshot.index(of: id) else { return nil }
        let type = snapshot.typeIndex(at: index)
        return EntityView(
            id: id, typeIndex: type, values: game.schema.entityTypes[type].fields.indices.map { snapshot.double(at: index, field: $0) })
    }

    /// The predicted local player as it is displayed (prediction plus the decaying correction offset).
    public var predictedLocalEntity: EntityView? {
        guard let state = predictedState, var entity = localEntity(in: state) else { return nil }
        let kinds = game.schema.entityTypes[entity.typeIndex].fields.map(\.kind)
        entity.values = smoother.display(entity.values, kinds: kinds)
        return entity
    }
}
