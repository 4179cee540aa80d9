using System.Globalization;
using System.Runtime.InteropServices;
using Microsoft.Data.Sqlite;
using Salsa.Store.Relational;
using SQLitePCL;

namespace Salsa.Store.Sqlite;

/// <summary>
/// A dataset imported into SQLite part by part: its row first, hidden (<c>importing_since_us</c>),
/// then each part's points in a transaction of its own — the file's one writer is never held for a
/// whole import — and at the end the quota's check and the row made visible, in one transaction.
/// Disposed before that, it removes its points and row.
/// </summary>
internal sealed class SqliteDatasetImport(SqliteDataStore store, DatasetInfo info) : DatasetImport
{
    /// <summary>Rows between two checks of the cancellation token.</summary>
    private const int CancellationCheckInterval = 4096;

    /// <summary>The dataset row's key, which its points hang on; -1 until the first part.</summary>
    private long _key = -1;

    private bool _completed;

    public override async Task WriteAsync(DatasetContent part, int from, CancellationToken cancellationToken)
    {
        if (_key < 0)
        {
            _key = await store.InsertImportRowAsync(info, part, cancellationToken);
        }

        await store.WritePointsAsync(_key, info, part, from, cancellationToken);
    }

    public override async Task CompleteAsync(DatasetInfo stored, CancellationToken cancellationToken)
    {
        await store.CompleteImportAsync(stored, rowWritten: _key >= 0, cancellationToken);
        _completed = true;
    }

    public override async ValueTask DisposeAsync()
    {
        if (!_completed && _key >= 0)
        {
            await store.DeleteImportAsync(_key);
        }
    }

    /// <summary>
    /// Inserts a part's points inside the connection's transaction, through SQLite's own API
    /// (SQLitePCLRaw, which Microsoft.Data.Sqlite wraps): one prepared statement, each value bound in
    /// place — no boxing, no per-call parameter bookkeeping — at several times SqliteCommand's rate
    /// per row, which is what a ten-million-point import is made of.
    /// </summary>
    public static void InsertPoints(SqliteConnection connection, string insert, long key, DatasetInfo info, DatasetContent content, int first, CancellationToken cancellationToken)
    {
        var columns = "dataset_pk, idx, weight" + (content.Values is not null || content.Words is not null ? ", vector" : "")
            + (content.Labels is not null ? ", label" : "") + (content.Texts is not null ? ", text" : "");
        var values = string.Join(", ", columns.Split(", ").Select((_, c) => "?" + (c + 1).ToString(CultureInfo.InvariantCulture)));
        var db = connection.Handle!;
        Check(raw.sqlite3_prepare_v2(db, insert.Replace("{columns}", columns, StringComparison.Ordinal).Replace("{values}", values, StringComparison.Ordinal), out var statement), db);
        using (statement)
        {
            var vectorBytes = StoreValidation.VectorBytes(info.Kind, info.Dimension, info.Bits);
            var all = content.Values is { } doubles ? MemoryMarshal.AsBytes(doubles.AsSpan())
                : content.Words is { } words ? MemoryMarshal.AsBytes(words.AsSpan()) : [];
            Check(raw.sqlite3_bind_int64(statement, 1, key), db); // bindings stay across resets
            for (var i = 0; i < content.Weights.Length; i++)
            {
                if (i % CancellationCheckInterval == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                var column = 2;
                Check(raw.sqlite3_bind_int64(statement, column++, first + i), db);
                Check(raw.sqlite3_bind_double(statement, column++, content.Weights[i]), db);
                if (vectorBytes > 0)
                {
                    // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
                    Check(raw.sqlite3_bind_blob(statement, column++, all.Slice(i * vectorBytes, vectorBytes)), db);
                }

                if (content.Labels is { } labels)
                {
                    Check(raw.sqlite3_bind_text(statement, column++, labels[i]), db);
                }

                if (content.Texts is { } texts)
                {
                    Check(raw.sqlite3_bind_text(statement, column, texts[i]), db);
                }

                var done = raw.sqlite3_step(statement);
                if (done != raw.SQLITE_DONE)
                {
                    SqliteException.ThrowExceptionForRC(done, db);
                }

                Check(raw.sqlite3_reset(statement), db);
            }
        }

        static void Check(int rc, sqlite3 db) => SqliteException.ThrowExceptionForRC(rc, db);
    }
}
