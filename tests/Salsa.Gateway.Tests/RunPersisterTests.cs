using Microsoft.Extensions.Logging.Abstractions;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The write-behind of a run's view: changes coalesce into few writes made a while later, a flush
/// stores the newest view at once, writes never overlap, and the last one stored is the newest —
/// under many threads changing and flushing one run at once.
/// </summary>
public sealed class RunPersisterTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    public async Task ManyThreadsChangingAndFlushing_EveryFlushStoresItsChange_WritesNeverOverlap(int writeBehindMs)
    {
        for (var trial = 0; trial < 20; trial++)
        {
            var store = new VersionedStore();
            var persist = new RunPersister(Run(), store.WriteAsync, TimeSpan.FromMilliseconds(writeBehindMs), NullLogger.Instance);
            var workers = Enumerable.Range(0, 8).Select(seed => Task.Run(async () =>
            {
                var random = new Random(seed + (trial * 8));
                for (var i = 0; i < 200; i++)
                {
                    var version = store.Change();
                    if (random.Next(4) == 0)
                    {
                        await persist.FlushAsync();
                        Assert.True(store.Stored >= version, $"a flush returned before its change ({version}) was stored ({store.Stored})");
                    }
                    else
                    {
                        persist.Changed();
                    }
                }
            }, Token)).ToList();
            await Task.WhenAll(workers);
            await persist.FlushAsync();

            Assert.Equal(store.Version, store.Stored);
            Assert.Equal(1, store.MostInFlight);
            Assert.InRange(store.Writes, 1, store.Version);
        }
    }

    [Fact]
    public async Task ChangesWithinTheWriteBehind_AreNotWritten_UntilAFlushWritesTheNewestOnce()
    {
        var store = new VersionedStore();
        var persist = new RunPersister(Run(), store.WriteAsync, TimeSpan.FromHours(1), NullLogger.Instance);
        for (var i = 0; i < 1_000; i++)
        {
            store.Change();
            persist.Changed();
        }

        await PromptWriteAsync(); // a write that was not held back would have been made meanwhile
        Assert.Equal(0, store.Writes);

        await persist.FlushAsync(); // does not wait the hour out (the test would time out)
        Assert.Equal(1, store.Writes);
        Assert.Equal(1_000, store.Stored);

        // After a flush, changes are held back again.
        store.Change();
        persist.Changed();
        await PromptWriteAsync();
        Assert.Equal(1, store.Writes);
        await persist.FlushAsync();
        Assert.Equal(2, store.Writes);
        Assert.Equal(1_001, store.Stored);
    }

    [Fact]
    public async Task ChangeWithoutFlush_IsWrittenAfterTheWriteBehind()
    {
        var store = new VersionedStore();
        var persist = new RunPersister(Run(), store.WriteAsync, TimeSpan.FromMilliseconds(20), NullLogger.Instance);
        store.Change();
        persist.Changed();

        await store.FirstWrite.Task.WaitAsync(TimeSpan.FromSeconds(30), Token);
        Assert.Equal(1, store.Stored);
    }

    [Fact]
    public async Task FailedWrite_ReportedByTheFlush_TheNextWriteStoresTheNewest()
    {
        var store = new VersionedStore { Failing = true };
        var persist = new RunPersister(Run(), store.WriteAsync, TimeSpan.FromHours(1), NullLogger.Instance);
        store.Change();
        persist.Changed();

        var failure = await Assert.ThrowsAsync<InvalidOperationException>(persist.FlushAsync);
        Assert.Contains("could not be stored", failure.Message, StringComparison.Ordinal);
        Assert.Equal(0, store.Stored);

        store.Failing = false;
        store.Change();
        await persist.FlushAsync();
        Assert.Equal(2, store.Stored);
    }

    /// <summary>
    /// A change of another run whose persister holds nothing back, written: its write goes the same way
    /// (the pool, then the store) as a write of the persister under test would if it were not held back.
    /// </summary>
    private static async Task PromptWriteAsync()
    {
        var witness = new VersionedStore();
        var prompt = new RunPersister(Run(), witness.WriteAsync, TimeSpan.Zero, NullLogger.Instance);
        witness.Change();
        prompt.Changed();
        await witness.FirstWrite.Task.WaitAsync(TimeSpan.FromSeconds(30), Token);
    }

    private static LiveRun Run()
    {
        var workflow = new WorkflowDefinition
        {
            Name = "persisted",
            Yaml = "name: persisted",
            Steps = [new StepDefinition { Id = "import", Service = "census", Operation = "import" }],
        };
        var view = new RunView
        {
            Id = Guid.NewGuid(),
            Workflow = workflow.Name,
            Steps = [new StepView { Id = "import", Service = "census", Operation = "import" }],
        };
        return new LiveRun(view, workflow, new RunRequestRecord(workflow.Name, workflow.Yaml, null, new Dictionary<string, System.Text.Json.Nodes.JsonNode?>()), "tenant");
    }

    /// <summary>A store of one run's version: a write stores the version current when it begins, as the real store stores the view current then.</summary>
    private sealed class VersionedStore
    {
        private long _version;
        private long _stored;
        private int _inFlight;
        private int _mostInFlight;
        private int _writes;

        public TaskCompletionSource FirstWrite { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public bool Failing { get; set; }

        public long Version => Volatile.Read(ref _version);

        public long Stored => Volatile.Read(ref _stored);

        public int MostInFlight => Volatile.Read(ref _mostInFlight);

        public int Writes => Volatile.Read(ref _writes);

        public long Change() => Interlocked.Increment(ref _version);

        public async Task WriteAsync(LiveRun run, CancellationToken cancellationToken)
        {
            var inFlight = Interlocked.Increment(ref _inFlight);
            int most;
            while (inFlight > (most = Volatile.Read(ref _mostInFlight)) && Interlocked.CompareExchange(ref _mostInFlight, inFlight, most) != most)
            {
            }

            try
            {
                var version = Version;
                if (Random.Shared.Next(2) == 0)
                {
                    await Task.Yield(); // some writes complete later, on another thread, as a store's do
                }

                if (Failing)
                {
                    throw new IOException("The disk is full.");
                }

                Assert.True(version >= Stored, "a write stored an older view over a newer one");
                Volatile.Write(ref _stored, version);
                Interlocked.Increment(ref _writes);
                FirstWrite.TrySetResult();
            }
            finally
            {
                Interlocked.Decrement(ref _inFlight);
            }
        }
    }
}
