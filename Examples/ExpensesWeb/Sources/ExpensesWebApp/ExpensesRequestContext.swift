#if Studio
import Hummingbird

/// The request context: Hummingbird's basic one with a small upload limit, since no request of
/// this app carries more than an expense or a category.
public struct ExpensesRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// Larger bodies get 413 before anything is decoded.
    public var maxUploadSize: Int { 16 * 1024 }
}
#endif
