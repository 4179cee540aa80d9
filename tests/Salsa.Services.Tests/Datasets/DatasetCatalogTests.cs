using Microsoft.Extensions.Options;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Security;
using Salsa.Store;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Services.Tests.Datasets;

/// <summary>
/// Two callers storing the same content: the second finds the first's dataset, even while the
/// first's import is still running (an import in progress is seen by no one, yet holds the id),
/// and stores its own when that import fails.
/// </summary>
public sealed class DatasetCatalogTests
{
    private static readonly DatasetContent Content = new() { Values = [1, 2, 3, 4, 5, 6, 7, 8], Weights = [1, 2, 3, 4] };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task GetOrCreate_WhileAnotherImportOfTheSameContentRuns_WaitsForItsEnd(bool otherFails)
    {
        using var directory = new TemporaryDirectory();
        await using var store = new SqliteDataStore(directory.Combine("salsa.db"));
        await store.InitializeAsync(Token);
        var refused = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var catalog = new DatasetCatalog(RefusalSignal.Wrap(store, refused), Options.Create(new ServiceLimits()));
        using var tenant = CallerTenant.Enter(Tenants.Local);
        var contentId = Guid.NewGuid();
        var info = new DatasetInfo { Id = DatasetCatalog.TenantId(contentId), Name = "points", Kind = DatasetKind.Dense, Count = 4, Dimension = 2, Created = DateTimeOffset.UtcNow };

        // The first caller's import, held between its two parts; its second part bad when it is to fail.
        var firstPartIn = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        async IAsyncEnumerable<DatasetContent> Parts()
        {
            yield return new DatasetContent { Values = Content.Values![..4], Weights = Content.Weights[..2] };
            firstPartIn.SetResult();
            await release.Task;
            yield return otherFails
                ? new DatasetContent { Values = Content.Values![4..6], Weights = Content.Weights[2..3] } // a row short of the count promised
                : new DatasetContent { Values = Content.Values![4..], Weights = Content.Weights[2..] };
        }

        var first = store.ImportDatasetAsync(info, Parts(), Token);
        await firstPartIn.Task;
        var built = 0;
        var second = catalog.GetOrCreateAsync(contentId, () => { built++; return (info, Content); }, Token);

        // Before the fix the second caller failed here ("could not be stored, nor found"): its
        // insert met the held id, and the dataset it then looked for was not visible yet.
        await refused.Task.WaitAsync(Token);
        Assert.False(second.IsCompleted, second.IsFaulted ? second.Exception!.InnerException!.Message : "completed");
        release.SetResult();
        if (otherFails)
        {
            await Assert.ThrowsAnyAsync<Exception>(() => first);
        }
        else
        {
            Assert.Equal(info.Id, (await first).Id);
        }

        var found = await second;
        Assert.Equal((info.Id, 4, 10.0), (found.Id, found.Count, found.TotalWeight));
        Assert.Equal(1, built);
        Assert.Single(await store.ListDatasetsAsync(null, cancellationToken: Token));
        Assert.Equal(Content.Values, (await store.ReadDatasetAsync(info.Id, Token))!.Values);
    }

    /// <summary>The real store, every call passed through; <c>refused</c> is set when a create is refused (the id held).</summary>
    public class RefusalSignal : System.Reflection.DispatchProxy
    {
        private IDataStore _store = null!;
        private TaskCompletionSource _refused = null!;

        public static IDataStore Wrap(IDataStore store, TaskCompletionSource refused)
        {
            var proxy = Create<IDataStore, RefusalSignal>();
            var signal = (RefusalSignal)(object)proxy;
            (signal._store, signal._refused) = (store, refused);
            return proxy;
        }

        protected override object? Invoke(System.Reflection.MethodInfo? targetMethod, object?[]? args)
        {
            var result = targetMethod!.Invoke(_store, args);
            if (targetMethod.Name == nameof(IDataStore.CreateDatasetAsync) && result is Task task)
            {
                _ = task.ContinueWith(t => _refused.TrySetResult(), CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);
            }

            return result;
        }
    }
}
