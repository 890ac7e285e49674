import Foundation

/// Input that cannot become an expense, with the field it is about.
public struct ExpenseInputError: Error, CustomStringConvertible, Equatable {
    public var field: String
    public var message: String
    /// Whether the input clashes with data that exists (a name taken), rather than being malformed.
    public var isConflict: Bool

    public init(field: String, message: String, isConflict: Bool = false) {
        self.field = field
        self.message = message
        self.isConflict = isConflict
    }

    public var description: String { message }
}
