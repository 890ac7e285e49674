import Foundation

/// One history transaction as the studio shows it: when, who, and what changed.
package struct BrowsedTransaction: Sendable {
    package struct Change: Sendable {
        package enum Kind: String, Sendable { case insert, update, delete }
        package let kind: Kind
        package let entity: String
        package let keys: [Int64]
        /// For updates: the properties that changed.
        package let properties: [String]
    }

    package let number: Int64
    package let timestamp: Date
    package let author: String?
    package let bundleIdentifier: String
    package let processIdentifier: String
    package let changes: [Change]
}
