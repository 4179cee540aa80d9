namespace Salsa.Store.Relational;

/// <summary>
/// One dataset's points on their way in by a vendor's bulk path — the store's hot path, where the
/// vendors differ in the work itself: SQLite binds one prepared insert per row, a transaction per
/// part; PostgreSQL streams every part into one binary COPY in one transaction. The relational core
/// checks each part, hands it here, and completes the import; disposing an import not completed
/// removes everything it wrote.
/// </summary>
internal abstract class DatasetImport : IAsyncDisposable
{
    /// <summary>Writes a checked part whose first row is <paramref name="from"/>; the first part also writes the dataset's row, hidden.</summary>
    public abstract Task WriteAsync(DatasetContent part, int from, CancellationToken cancellationToken);

    /// <summary>Makes the dataset visible with its totals, once the quota allows (<see cref="RelationalDataStore.CompleteImportAsync"/>).</summary>
    public abstract Task CompleteAsync(DatasetInfo stored, CancellationToken cancellationToken);

    public abstract ValueTask DisposeAsync();
}
