import Foundation

/// Builds an empty value of a `Decodable` type that has no obvious one (a struct, an enum with
/// payloads) by decoding it from nothing: every number is zero, every string empty, every optional
/// `nil`, every collection empty, and an enum takes its first case. Used only where a getter must
/// return a value of a model whose row is gone (see ``PlaceholderValue``).
///
/// A type whose own `init(from:)` refuses such values gives `nil`.
struct PlaceholderDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func make(_ type: any Decodable.Type) -> Any? {
        try? type.init(from: PlaceholderDecoder())
    }

    /// The empty value of a nested type: an obvious one, or decoded from nothing in turn.
    static func value<T: Decodable>(_ type: T.Type) throws -> T {
        guard let value = PlaceholderValue.make(T.self) else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "\(T.self) has no empty value"))
        }
        return value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(codingPath: codingPath) }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        var codingPath: [any CodingKey]

        /// One key, so that an enum's synthesised decoding picks a case: the key type's first case
        /// (a synthesised `CodingKeys` enum is plain data, and all bits zero is its first case).
        var allKeys: [Key] {
            (PlaceholderValue.zeroed(Key.self) as? Key).map { [$0] } ?? []
        }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try PlaceholderDecoder.value(T.self) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath + [key]) }
        func superDecoder() throws -> any Decoder { PlaceholderDecoder(codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { PlaceholderDecoder(codingPath: codingPath + [key]) }
    }

    /// An empty list.
    private struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey]
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        private func end() -> DecodingError {
            DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "a placeholder list is empty"))
        }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
        mutating func superDecoder() throws -> any Decoder { throw end() }
    }

    private struct Single: SingleValueDecodingContainer {
        var codingPath: [any CodingKey]
        func decodeNil() -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try PlaceholderDecoder.value(T.self) }
    }
}
