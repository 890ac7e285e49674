import Foundation

/// One value in a ``DefaultSnapshot``: an attribute's stored form, or the identifiers of related
/// models.
enum SnapshotValue: Hashable, Sendable, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case model(PersistentIdentifier)
    case models([PersistentIdentifier])

    init(_ stored: StoredValue) {
        switch stored {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        case .date, .uuid, .decimal: self.init(stored.storageForm)
        }
    }

    /// The attribute value for a codec storing `type`: JSON does not keep `1` and `1.0` apart.
    func stored(as type: StoredType) -> StoredValue {
        switch self {
        case .null, .model, .models: return .null
        case .integer(let value): return type == .real ? .real(Double(value)) : .integer(value)
        case .real(let value):
            if type == .integer, let exact = Int64(exactly: value) { return .integer(exact) }
            return .real(value)
        case .text(let value): return .text(value)
        case .blob(let value): return .blob(value)
        }
    }

    var publicValue: (any DataStoreSnapshotValue)? {
        switch self {
        case .null: return nil
        case .integer(let value): return value
        case .real(let value): return value
        case .text(let value): return value
        case .blob(let value): return value
        case .model(let id): return id
        case .models(let ids): return ids
        }
    }

    private enum Tag: String, CodingKey { case data, model, models, real }

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null; return }
        if let integer = try? single.decode(Int64.self) { self = .integer(integer); return }
        if let real = try? single.decode(Double.self) { self = .real(real); return }
        if let text = try? single.decode(String.self) { self = .text(text); return }
        let tagged = try decoder.container(keyedBy: Tag.self)
        if let data = try tagged.decodeIfPresent(Data.self, forKey: .data) { self = .blob(data); return }
        if let id = try tagged.decodeIfPresent(PersistentIdentifier.self, forKey: .model) { self = .model(id); return }
        if let ids = try tagged.decodeIfPresent([PersistentIdentifier].self, forKey: .models) { self = .models(ids); return }
        if let real = try tagged.decodeIfPresent(String.self, forKey: .real), let value = Double(real) { self = .real(value); return }
        throw DecodingError.dataCorruptedError(forKey: .data, in: tagged, debugDescription: "not a snapshot value: expected null, a number, a string, or an object with data, model, models or real")
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .real(let value) where value.isFinite && !(value == 0 && value.sign == .minus):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .real(let value):
            // JSON has no infinities (NaN is already stored as the text "NaN"), and `-0.0`
            // would come back as the integer 0, without its sign.
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(String(value), forKey: .real)
        case .text(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .blob(let value):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(value, forKey: .data)
        case .model(let id):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(id, forKey: .model)
        case .models(let ids):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(ids, forKey: .models)
        }
    }
}
