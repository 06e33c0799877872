import Foundation

/// An ``EntityStore`` part of a ``StateFingerprint``.
///
/// Its hash combines the number of entities, the sum of the entities' hashes (their
/// content, in any order) and the sum of the hashes of each pair of neighbours (their
/// order, with the ends linked to a sentinel). A change of one entity touches its own hash
/// and its links only: O(changed) per action.
struct EntityFingerprintPart<State, Entity: Codable & Identifiable & Equatable & Sendable>: FingerprintPart
where Entity.ID: Codable & Sendable {
    let keyPath: WritableKeyPath<State, EntityStore<Entity>>
    let name: String
    let makeCapture: () -> FingerprintCapture<State>

    func makeDigest() -> any FingerprintDigest { EntityFingerprintDigest<Entity>() }
    func captureAll(_ state: State) -> any Sendable { EntityPartCapture(all: state[keyPath: keyPath]) }

    func applyExternal(_ payload: String, to state: inout State) throws {
        let change = try JSONDecoder().decode(EntityPartPayload<Entity>.self, from: Data(payload.utf8))
        if let all = change.all {
            state[keyPath: keyPath] = EntityStore(all)
            return
        }
        for id in change.deleted ?? [] { state[keyPath: keyPath][id] = nil }
        for entity in change.upserted ?? [] { state[keyPath: keyPath][entity.id] = entity }
        if let order = change.order {
            let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            state[keyPath: keyPath].sort { (rank[$0.id] ?? .max) < (rank[$1.id] ?? .max) }
        } else if let upserted = change.upserted, let predecessors = change.predecessors {
            // In the store's order: each entity's predecessor is in place before it.
            for (entity, predecessor) in zip(upserted, predecessors) {
                Self.place(entity.id, after: predecessor, in: &state[keyPath: keyPath])
            }
        }
    }

    /// Moves `id` right after `predecessor` (first when `nil`). O(*n*).
    private static func place(_ id: Entity.ID, after predecessor: Entity.ID?, in store: inout EntityStore<Entity>) {
        guard let position = store.firstIndex(where: { $0.id == id }) else { return }
        let destination = predecessor.flatMap { predecessor in store.firstIndex { $0.id == predecessor } }.map { $0 + 1 } ?? 0
        store.move(fromOffsets: IndexSet(integer: position), toOffset: destination)
    }
}

/// An external change of an entity store as a recording keeps it (keys kept short).
struct EntityPartPayload<Entity: Codable & Identifiable>: Codable where Entity.ID: Codable {
    var all: [Entity]?
    var upserted: [Entity]?
    var deleted: [Entity.ID]?
    /// Undo and redo: the id before each of `upserted` in the store (`nil`: first).
    var predecessors: [Entity.ID?]?
    /// Undo and redo of a reorder: every id, in order.
    var order: [Entity.ID]?

    enum CodingKeys: String, CodingKey {
        case all = "r", upserted = "u", deleted = "d", predecessors = "p", order = "o"
    }
}

final class EntityFingerprintDigest<Entity: Codable & Identifiable & Equatable & Sendable>: FingerprintDigest
where Entity.ID: Codable & Sendable {
    private struct Node {
        var hash: UInt64
        var idHash: UInt64
        var predecessor: Entity.ID?
        var successor: Entity.ID?
    }

    private var nodes: [Entity.ID: Node] = [:]
    private var head: Entity.ID?
    private var content: UInt64 = 0
    private var order: UInt64 = 0

    init() {
        order = link(nil, nil)
    }

    var value: UInt64 {
        var hash = Fingerprinting.mix(UInt64(nodes.count) &+ 0x632B_E59B_D9B4_E019)
        hash = Fingerprinting.mix(hash ^ content)
        return Fingerprinting.mix(hash ^ order)
    }

    private func idHash(_ id: Entity.ID?) -> UInt64? {
        guard let id else { return nil }
        return nodes[id]?.idHash
    }

    private func link(_ before: UInt64?, _ after: UInt64?) -> UInt64 {
        Fingerprinting.mix((before ?? 0x5851_F42D_4C95_7F2D) &* 31 &+ Fingerprinting.mix(after ?? 0x1405_7B7E_F767_814F))
    }

    func apply(_ capture: any Sendable, using hashing: Fingerprinting) throws {
        guard let capture = capture as? EntityPartCapture<Entity> else { return }
        if let all = capture.all {
            try rebuild(all, using: hashing)
            return
        }
        if let order = capture.order {
            try reorder(capture, to: order, using: hashing)
            return
        }
        for id in capture.removed { unlink(id) }
        for change in capture.present {
            unlink(change.entity.id)
            try insert(change.entity, after: change.predecessor, using: hashing)
        }
    }

    private func rebuild(_ store: EntityStore<Entity>, using hashing: Fingerprinting) throws {
        nodes.removeAll(keepingCapacity: true)
        head = nil
        content = 0
        order = link(nil, nil)
        var last: Entity.ID?
        for entity in store {
            try insert(entity, after: last, using: hashing)
            last = entity.id
        }
    }

    /// Updates the changed entities' hashes, then relinks the whole chain in `order` from the
    /// ids' cached hashes: O(*n*) additions, no entity hashed but the changed ones.
    private func reorder(_ capture: EntityPartCapture<Entity>, to order: [Entity.ID], using hashing: Fingerprinting) throws {
        for id in capture.removed {
            if let node = nodes.removeValue(forKey: id) { content &-= node.hash }
        }
        for entity in capture.present.lazy.map(\.entity) {
            let hash = try hashing.hash(entity)
            if let old = nodes[entity.id]?.hash {
                content &-= old
                nodes[entity.id]?.hash = hash
            } else {
                nodes[entity.id] = Node(hash: hash, idHash: try hashing.hash(entity.id), predecessor: nil, successor: nil)
            }
            content &+= hash
        }
        head = order.first
        self.order = 0
        var previous: (id: Entity.ID, hash: UInt64)?
        for id in order {
            guard let idHash = nodes[id]?.idHash else { continue }
            self.order &+= link(previous?.hash, idHash)
            nodes[id]?.predecessor = previous?.id
            if let previous { nodes[previous.id]?.successor = id }
            previous = (id, idHash)
        }
        if let previous { nodes[previous.id]?.successor = nil }
        self.order &+= link(previous?.hash, nil)
    }

    /// Takes `id` out of the chain: its neighbours become linked.
    private func unlink(_ id: Entity.ID) {
        guard let node = nodes.removeValue(forKey: id) else { return }
        let before = idHash(node.predecessor), after = idHash(node.successor)
        content &-= node.hash
        order &-= link(before, node.idHash)
        order &-= link(node.idHash, after)
        order &+= link(before, after)
        if let predecessor = node.predecessor { nodes[predecessor]?.successor = node.successor } else { head = node.successor }
        if let successor = node.successor { nodes[successor]?.predecessor = node.predecessor }
    }

    /// Puts `entity` into the chain after `predecessor` (first when `nil`).
    private func insert(_ entity: Entity, after predecessor: Entity.ID?, using hashing: Fingerprinting) throws {
        let id = entity.id
        let node = Node(hash: try hashing.hash(entity), idHash: try hashing.hash(id), predecessor: predecessor, successor: nil)
        // A predecessor the chain does not hold (it should) counts as the start.
        let known = predecessor.flatMap { nodes[$0] != nil ? $0 : nil }
        let successor = known.map { nodes[$0]!.successor } ?? head
        let before = idHash(known), after = idHash(successor)
        order &-= link(before, after)
        order &+= link(before, node.idHash)
        order &+= link(node.idHash, after)
        content &+= node.hash
        var stored = node
        stored.predecessor = known
        stored.successor = successor
        nodes[id] = stored
        if let known { nodes[known]?.successor = id } else { head = id }
        if let successor { nodes[successor]?.predecessor = id }
    }

    func externalPayload(_ capture: any Sendable, placed: Bool) throws -> String? {
        guard let capture = capture as? EntityPartCapture<Entity> else { return nil }
        var payload = EntityPartPayload<Entity>()
        if let all = capture.all {
            payload.all = Array(all)
        } else if let order = capture.order {
            // External changes place entities themselves; a reorder is not replayed from here.
            payload.upserted = capture.present.map(\.entity)
            payload.deleted = capture.removed
            if placed { payload.order = order }
        } else {
            payload.upserted = capture.present.map(\.entity)
            payload.deleted = capture.removed
            if placed { payload.predecessors = capture.present.map(\.predecessor) }
        }
        return String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
    }
}
