import Foundation
import OpenSwiftData

/// A row written by a concurrent writer: which writer, and its sequence number there.
@Model
public final class Tick {
    public var writer: Int
    public var sequence: Int
    public var payload: String

    public init(writer: Int, sequence: Int, payload: String = "") {
        self.writer = writer
        self.sequence = sequence
        self.payload = payload
    }
}

/// Writes `count` ticks for `writer` into the store at `url`, saving every `batch` inserts.
public func writeTicks(to container: ModelContainer, writer: Int, count: Int, batch: Int) throws {
    let context = ModelContext(container)
    for sequence in 0..<count {
        context.insert(Tick(writer: writer, sequence: sequence, payload: String(repeating: "x", count: sequence % 50)))
        if (sequence + 1) % batch == 0 { try context.save() }
    }
    try context.save()
}
