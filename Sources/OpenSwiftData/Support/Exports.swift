// `@Model` classes conform to `Observable`; the generated conformance names Observation's
// protocol, so code that imports only OpenSwiftData must see that module too.
@_exported import Observation
