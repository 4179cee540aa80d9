using System.Globalization;
using Microsoft.Data.Sqlite;
using Salsa.DataFiles;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Store.Tests;

/// <summary>The contract on the embedded store, each test in a file of its own, plus what only SQLite has: the file.</summary>
public sealed class SqliteDataStoreTests : DataStoreContractTests
{
    /// <summary>An upper bound on waiting for the other process, so a broken one fails the test instead of hanging it.</summary>
    private static readonly TimeSpan Hang = TimeSpan.FromSeconds(60);

    private readonly TemporaryDirectory _directory = new("salsa-store-test-");

    protected override ValueTask<string> ClassStorageAsync() => ValueTask.FromResult(_directory.Combine("store.db"));

    protected override ValueTask<string> NewStorageAsync() => ValueTask.FromResult(_directory.Combine($"new-{Guid.NewGuid():N}", "store.db"));

    protected override IDataStore Open(string location, StorageQuota? quota = null) => new SqliteDataStore(location, quota: quota);

    public override async ValueTask DisposeAsync()
    {
        await base.DisposeAsync();
        _directory.Dispose();
    }

    [Fact]
    public async Task InitializeAsync_PathInMissingDirectories_CreatesThemAndAWalFile()
    {
        var path = _directory.Combine("a", "b", "c", "salsa.db");

        await OpenInitializedAsync(path);

        Assert.True(File.Exists(path));
        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync(Ct);
        await using var mode = connection.CreateCommand();
        mode.CommandText = "PRAGMA journal_mode;";
        Assert.Equal("wal", (string?)await mode.ExecuteScalarAsync(Ct));
    }

    [Fact]
    public async Task Writes_NeverCheckpointInline_TheLogStaysBounded_AndEveryWriteIsKept()
    {
        // 16 writers upsert 4,000 job records of ~8 KB (over 30 MB of log): without checkpoints the log
        // would hold all of it (66 MB measured). Writes back to back leave no gap for the log to restart
        // in after a background checkpoint, so writers finding it past 16 MB wait for the checkpoint,
        // which copies once more with the writers held back: it stays bounded (16.6 MB at most seen,
        // with both cores busy or not). A
        // store disposed while a checkpoint may be running releases the file, over 12 trials.
        const int Writers = 16;
        const int PerWriter = 250;
        var result = "{\"padding\":\"" + new string('x', 8_000) + "\"}";
        for (var trial = 0; trial < 12; trial++)
        {
            var path = _directory.Combine($"checkpoint-{trial}.db");
            var store = new SqliteDataStore(path);
            await store.InitializeAsync(Ct);
            var jobs = Enumerable.Range(0, Writers).Select(_ => TestData.Job("checkpoints") with { ResultJson = result }).ToArray();
            long largestLog = 0;
            await Task.WhenAll(jobs.Select(job => Task.Run(async () =>
            {
                for (var i = 0; i < (trial == 0 ? PerWriter : 40); i++)
                {
                    await store.UpdateJobAsync(job with { ProgressJson = string.Create(CultureInfo.InvariantCulture, $"{{\"i\":{i}}}") }, Ct);
                    var log = new FileInfo(path + "-wal");
                    if (log.Exists)
                    {
                        InterlockedMax(ref largestLog, log.Length);
                    }
                }
            }, Ct)));

            if (trial == 0)
            {
                Assert.True(largestLog < 24_000_000, $"the log grew to {largestLog:N0} bytes");
            }

            await store.DisposeAsync(); // at once: a checkpoint may be running
            File.Move(path, path + ".moved");
            await using var reopened = new SqliteDataStore(path + ".moved");
            foreach (var job in jobs)
            {
                Assert.Equal(string.Create(CultureInfo.InvariantCulture, $"{{\"i\":{(trial == 0 ? PerWriter : 40) - 1}}}"), (await reopened.GetJobAsync(job.Id, Ct))!.ProgressJson);
            }
        }
    }

    private static void InterlockedMax(ref long target, long value)
    {
        for (var seen = Volatile.Read(ref target); value > seen; seen = Volatile.Read(ref target))
        {
            if (Interlocked.CompareExchange(ref target, value, seen) == seen)
            {
                return;
            }
        }
    }

    [Fact]
    public async Task InitializeAsync_FileFromANewerSchema_ThrowsNotSupported()
    {
        var path = _directory.Combine("newer.db");
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            await connection.OpenAsync(Ct);
            await using var version = connection.CreateCommand();
            version.CommandText = "PRAGMA user_version = 99;";
            await version.ExecuteNonQueryAsync(Ct);
        }

        await Assert.ThrowsAsync<NotSupportedException>(() => OpenInitializedAsync(path));
    }

    [Fact]
    public async Task InitializeAsync_AnImportACrashInterrupted_IsRemovedOnceAnHourOld_ARecentOneIsLeftToFinish()
    {
        var path = _directory.Combine("crashed.db");
        await OpenInitializedAsync(path);
        var (abandoned, recent) = (Guid.NewGuid(), Guid.NewGuid());
        var now = DateTimeOffset.UtcNow;
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            // What a process that died between two parts of its imports left: hidden rows and some points.
            await connection.OpenAsync(Ct);
            await using var crash = connection.CreateCommand();
            crash.CommandText = string.Create(CultureInfo.InvariantCulture, $"""
                INSERT INTO datasets (pk, id, name, kind, count, dimension, bits, total_weight, created_us, source, metadata, has_labels, has_texts, importing_since_us)
                VALUES (1001, '{abandoned}', 'abandoned', 1, 100, 2, 0, 0, 0, 'crash', '{"{}"}', 0, 0, {now.AddHours(-2).ToUnixTimeMilliseconds() * 1000}),
                       (1002, '{recent}', 'recent', 1, 100, 2, 0, 0, 0, 'still importing', '{"{}"}', 0, 0, {now.AddMinutes(-5).ToUnixTimeMilliseconds() * 1000});
                INSERT INTO dataset_points (dataset_pk, idx, vector, weight) VALUES (1001, 0, zeroblob(16), 1), (1001, 1, zeroblob(16), 1), (1002, 0, zeroblob(16), 1);
                """);
            await crash.ExecuteNonQueryAsync(Ct);
        }

        var store = await OpenInitializedAsync(path);

        Assert.Null(await store.GetDatasetAsync(abandoned, Ct));
        Assert.Null(await store.GetDatasetAsync(recent, Ct));
        await using var check = new SqliteConnection($"Data Source={path};Pooling=False");
        await check.OpenAsync(Ct);
        await using var left = check.CreateCommand();
        left.CommandText = "SELECT group_concat(dataset_pk) FROM (SELECT dataset_pk FROM dataset_points UNION ALL SELECT pk FROM datasets WHERE importing_since_us IS NOT NULL ORDER BY 1);";
        Assert.Equal("1002,1002", (string?)await left.ExecuteScalarAsync(Ct));
    }

    [Fact]
    public async Task InitializeAsync_FileOfSchemaVersion1_MigratesKeepingRecordsAsTheLocalTenants()
    {
        var path = _directory.Combine("v1.db");
        // The schema of version 1 as the store ships it (its first SQLite script).
        string v1;
        using (var script = new StreamReader(typeof(SqliteDataStore).Assembly.GetManifestResourceStream("Salsa.Store.Sqlite.Sql.001-schema.sql")!))
        {
            v1 = await script.ReadToEndAsync(Ct);
        }

        var dataset = Guid.NewGuid();
        var job = Guid.NewGuid();
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            await connection.OpenAsync(Ct);
            await using var create = connection.CreateCommand();
            create.CommandText = v1 + $"""
                INSERT INTO datasets (id, name, kind, count, dimension, bits, total_weight, created_us, source, metadata, has_labels, has_texts)
                VALUES ('{dataset}', 'old', 1, 0, 2, 0, 0, 0, 'before tenants', '{"{}"}', 0, 0);
                INSERT INTO jobs (id, service, kind, state, created_us, parameters) VALUES ('{job}', 'annealing', 'annealing', 3, 0, '{"{}"}');
                PRAGMA user_version = 1;
                """;
            await create.ExecuteNonQueryAsync(Ct);
        }

        var store = await OpenInitializedAsync(path);

        Assert.Equal(Tenants.Local, (await store.GetDatasetAsync(dataset, Ct))!.Tenant);
        Assert.Equal(Tenants.Local, (await store.GetJobAsync(job, Ct))!.Tenant);
        Assert.Equal([dataset], (await store.ListDatasetsAsync(Tenants.Local, 10, Ct)).Select(d => d.Id));
        var key = TestData.ApiKey(Tenants.Local, ["admin"]);
        await store.InsertApiKeyAsync(key, int.MaxValue, Ct);
        Assert.NotNull(await store.GetApiKeyAsync(key.Id, Ct));

        // Opening it again migrates nothing twice.
        await OpenInitializedAsync(path);
    }

    [Fact]
    public async Task InitializeAsync_FileOfSchemaVersion3_CountsTheBytesOfEveryDatasetStoredBefore()
    {
        var path = _directory.Combine("v3.db");
        var (info, content) = TestData.Dense(40, 3, labels: true, texts: true);
        var stored = await (await OpenInitializedAsync(path)).CreateDatasetAsync(info, content, Ct);
        var empty = await (await OpenInitializedAsync(path)).CreateDatasetAsync(
            new DatasetInfo { Id = Guid.NewGuid(), Name = "empty", Kind = DatasetKind.Dense, Count = 0, Dimension = 3, Created = TestData.Epoch }, new DatasetContent { Values = [], Weights = [] }, Ct);
        await DisposeOpenedAsync();
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            // Back to version 3: no bytes column (and none of version 5's digests).
            await connection.OpenAsync(Ct);
            await using var downgrade = connection.CreateCommand();
            downgrade.CommandText = "ALTER TABLE datasets DROP COLUMN bytes; ALTER TABLE datasets DROP COLUMN sha256; ALTER TABLE job_artifacts DROP COLUMN sha256; ALTER TABLE jobs DROP COLUMN resources; PRAGMA user_version = 3;";
            await downgrade.ExecuteNonQueryAsync(Ct);
        }

        var store = await OpenInitializedAsync(path);

        Assert.Equal(stored.Bytes, (await store.GetDatasetAsync(info.Id, Ct))!.Bytes);
        Assert.True(stored.Bytes > 40 * 32);
        Assert.Equal(0, (await store.GetDatasetAsync(empty.Id, Ct))!.Bytes);
        Assert.Equal(new StorageUsage(2, stored.Bytes), await store.GetUsageAsync(Tenants.Local, Ct));
    }

    [Fact]
    public async Task InitializeAsync_FileOfSchemaVersion4_DigestsWhatWasStoredBefore_WhenFirstRead()
    {
        var path = _directory.Combine("v4.db");
        var (info, content) = TestData.Dense(40, 3, labels: true, texts: true);
        var (fingerprints, words) = TestData.Fingerprints(TestData.Chem500.Value, FingerprintType.Maccs);
        var job = TestData.Job("digests");
        var file = new Artifact("assignments.bin", "application/octet-stream", [1, 2, 3, 4, 5]);
        var first = await OpenInitializedAsync(path);
        var dense = await first.CreateDatasetAsync(info, content, Ct);
        var binary = await first.CreateDatasetAsync(fingerprints, words, Ct);
        await first.InsertJobAsync(job, Ct);
        await first.PutArtifactAsync(job.Id, file, Ct);
        await DisposeOpenedAsync();
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            // Back to version 4: nothing has a digest, no job its resources.
            await connection.OpenAsync(Ct);
            await using var downgrade = connection.CreateCommand();
            downgrade.CommandText = "ALTER TABLE datasets DROP COLUMN sha256; ALTER TABLE job_artifacts DROP COLUMN sha256; ALTER TABLE jobs DROP COLUMN resources; PRAGMA user_version = 4;";
            await downgrade.ExecuteNonQueryAsync(Ct);
        }

        var store = await OpenInitializedAsync(path);
        Assert.Equal(job, await store.GetJobAsync(job.Id, Ct)); // a job stored before resources were kept has none

        // The digest made from the rows read back is the one the import made.
        Assert.Equal(dense.Sha256, (await store.GetDatasetAsync(info.Id, Ct))!.Sha256);
        Assert.Equal(binary.Sha256, (await store.GetDatasetAsync(fingerprints.Id, Ct))!.Sha256);
        Assert.Equal(Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(file.Data)), Assert.Single(await store.ListArtifactsAsync(job.Id, Ct)).Sha256);
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            // And kept: read once, not computed at every read.
            await connection.OpenAsync(Ct);
            await using var count = connection.CreateCommand();
            count.CommandText = "SELECT (SELECT COUNT(*) FROM datasets WHERE sha256 IS NULL) + (SELECT COUNT(*) FROM job_artifacts WHERE sha256 IS NULL);";
            Assert.Equal(0L, (long)(await count.ExecuteScalarAsync(Ct))!);
        }
    }

    [Fact]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public async Task Files_TheStoreItsWalAndShm_ReadableByTheOwnerOnly_AFileReadableByOthersMadePrivate()
    {
        const UnixFileMode Private = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        var folder = _directory.Combine("state");
        var path = System.IO.Path.Combine(folder, "salsa.db");
        var store = await OpenInitializedAsync(path);
        await store.InsertJobAsync(TestData.Job("files"), Ct); // the log and the shared memory exist once written

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(folder));
        foreach (var file in new[] { path, path + "-wal", path + "-shm" })
        {
            Assert.True(File.Exists(file), file);
            Assert.Equal(Private, File.GetUnixFileMode(file));
        }

        // A store file an older build left 0644: private once opened, its log and shared memory with it.
        await DisposeOpenedAsync();
        var older = _directory.Combine("older.db");
        await using (var connection = new SqliteConnection($"Data Source={older};Pooling=False"))
        {
            await connection.OpenAsync(Ct);
            await using var wal = connection.CreateCommand();
            wal.CommandText = "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);";
            await wal.ExecuteNonQueryAsync(Ct);
            File.SetUnixFileMode(older, Private | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
            Assert.NotEqual(Private, File.GetUnixFileMode(older));
        }

        await (await OpenInitializedAsync(older)).InsertJobAsync(TestData.Job("files"), Ct);
        foreach (var file in new[] { older, older + "-wal", older + "-shm" })
        {
            Assert.Equal(Private, File.GetUnixFileMode(file));
        }
    }

    [Fact]
    public async Task DisposeAsync_ThenUsed_ThrowsObjectDisposed()
    {
        await Store.DisposeAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => Store.GetJobAsync(Guid.NewGuid(), Ct));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => Store.InsertJobAsync(TestData.Job("disposed"), Ct));
    }

    [Fact]
    public async Task SecondProcess_WritingAtTheSameTime_EveryWriteOfBothProcessesLands()
    {
        var service = TestData.UniqueService("process");
        const int Jobs = 60;
        const int Datasets = 3;
        const int ChildSeed = 500;
        using var child = SqliteWriterProcess.Start(Location, service, Jobs, Datasets, ChildSeed);
        try
        {
            Assert.Equal("ready", await child.StandardOutput.ReadLineAsync(Ct).AsTask().WaitAsync(Hang, Ct));
            var ours = Enumerable.Range(0, Datasets).Select(i => TestData.Dense(3000, 2, seed: 600 + i, labels: true)).ToArray();

            await child.StandardInput.WriteLineAsync("go");
            await child.StandardInput.FlushAsync(Ct);
            await Task.WhenAll(
                Enumerable.Range(0, Jobs).Select(_ => Task.Run(() => Store.InsertJobAsync(TestData.Job(service), Ct), Ct)).Concat(
                ours.Select(d => Task.Run(() => Store.CreateDatasetAsync(d.Info, d.Content, Ct), Ct))));
            var output = await child.StandardOutput.ReadToEndAsync(Ct).WaitAsync(Hang, Ct);
            await child.WaitForExitAsync(Ct).WaitAsync(Hang, Ct);

            Assert.True(child.ExitCode == 0, $"the writer process exited with {child.ExitCode}: {await child.StandardError.ReadToEndAsync(Ct)}");
            Assert.Equal(2 * Jobs, (await Store.ListJobsAsync(service, null, 1000, Ct)).Count);
            var theirs = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
                .Select(line => line.Split(' '))
                .Select(f => (Id: Guid.Parse(f[1]), Seed: int.Parse(f[2], CultureInfo.InvariantCulture)))
                .ToArray();
            Assert.Equal(Datasets, theirs.Length);
            foreach (var (id, seed) in theirs)
            {
                StoreAssert.SameContent(TestData.Dense(3000, 2, seed: seed, labels: true).Content, await Store.ReadDatasetAsync(id, Ct));
            }

            foreach (var (info, content) in ours)
            {
                StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
            }
        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill(entireProcessTree: true);
            }
        }
    }
}
