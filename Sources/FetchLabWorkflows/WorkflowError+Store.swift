import FetchLabStore

extension WorkflowError {
    /// A store failure as a workflow failure (its one line kept).
    public init(_ error: StoreError) { self.init(.store, error.description, cause: error) }
}
