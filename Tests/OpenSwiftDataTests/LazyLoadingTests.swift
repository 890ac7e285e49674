import Foundation
import Testing
@testable import OpenSwiftData

/// Relationships load on first access in a fresh context, not with the fetch.
@Suite struct LazyLoadingTests {
}
