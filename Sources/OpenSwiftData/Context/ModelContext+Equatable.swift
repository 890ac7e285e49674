import Foundation

extension ModelContext: Equatable {
    /// Whether the two are the same context (SwiftData's contexts compare by identity).
    ///
    /// ```swift
    /// if context == container.mainContext { … }
    /// ```
    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool {
        lhs === rhs
    }
}
