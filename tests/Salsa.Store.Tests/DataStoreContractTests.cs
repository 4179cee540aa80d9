using System.Text;
using Salsa.DataFiles;

namespace Salsa.Store.Tests;

/// <summary>
/// What every <see cref="IDataStore"/> promises, run against each implementation by a derived
/// class. Tests in a class may share one database, so each works with its own ids and service
/// names and never assumes the store is empty.
/// </summary>
public abstract class DataStoreContractTests : IAsyncLifetime
{
    private readonly List<IDataStore> _opened = [];

    /// <summary>This test's store, initialised.</summary>
    protected IDataStore Store { get; private set; } = null!;

    /// <summary>Where <see cref="Store"/> lives (a file path or a connection string).</summary>
    protected string Location { get; private set; } = "";

    protected static CancellationToken Ct => TestContext.Current.CancellationToken;

    /// <summary>The storage this test class works in (a database shared by the class, or a file of this test).</summary>
    protected abstract ValueTask<string> ClassStorageAsync();

    /// <summary>Storage nobody has used yet.</summary>
    protected abstract ValueTask<string> NewStorageAsync();

    /// <summary>A new, uninitialised store instance on <paramref name="location"/>, bounding each tenant by <paramref name="quota"/>.</summary>
    protected abstract IDataStore Open(string location, StorageQuota? quota = null);

    public async ValueTask InitializeAsync()
    {
        Location = await ClassStorageAsync();
        Store = await OpenInitializedAsync(Location);
    }

    public virtual async ValueTask DisposeAsync()
    {
        await DisposeOpenedAsync();
        GC.SuppressFinalize(this);
    }

    /// <summary>Closes every store this test opened (as a stopped process would).</summary>
    protected async Task DisposeOpenedAsync()
    {
        foreach (var store in _opened)
        {
            await store.DisposeAsync();
        }

        _opened.Clear();
    }

    /// <summary>Another instance on the same storage, as a second process or a restarted service would have.</summary>
    protected async Task<IDataStore> OpenInitializedAsync(string location, StorageQuota? quota = null)
    {
        var store = Open(location, quota);
        _opened.Add(store);
        await store.InitializeAsync(Ct);
        return store;
    }

    // ---- Initialisation ----

    [Fact]
    public async Task InitializeAsync_CalledAgain_IsIdempotentAndKeepsData()
    {
        var job = TestData.Job(TestData.UniqueService("init"));
        await Store.InsertJobAsync(job, Ct);

        await Store.InitializeAsync(Ct);

        Assert.Equal(job, await Store.GetJobAsync(job.Id, Ct));
    }

    [Fact]
    public async Task InitializeAsync_SeveralInstancesAtOnceOnNewStorage_AllSucceedOnOneSchema()
    {
        var location = await NewStorageAsync();
        var stores = Enumerable.Range(0, 4).Select(_ => Open(location)).ToArray();
        _opened.AddRange(stores);

        await Task.WhenAll(stores.Select(s => Task.Run(() => s.InitializeAsync(Ct), Ct)));

        var job = TestData.Job(TestData.UniqueService("init-race"));
        await stores[0].InsertJobAsync(job, Ct);
        Assert.Equal(job, await stores[3].GetJobAsync(job.Id, Ct));
    }

    // ---- Datasets ----

    [Fact]
    public async Task CreateDatasetAsync_DenseWithLabelsAndTexts_RoundTripsInfoAndContent()
    {
        var (info, content) = TestData.Dense(1000, 3, labels: true, texts: true);
        info = info with
        {
            Metadata = new Dictionary<string, string> { ["projection"] = "none", ["ünïcødé"] = "値 ✓", ["empty"] = "" },
            Source = "upload:test.csv",
        };

        // Bit patterns a text encoding would lose.
        content.Values![0] = double.NaN;
        content.Values[1] = -0.0;
        content.Values[2] = double.NegativeInfinity;
        content.Values[3] = double.Epsilon;
        content.Labels![1] = "ünïcødé 値";
        content.Texts![2] = "";

        var stored = await Store.CreateDatasetAsync(info, content, Ct);

        Assert.Matches("^[0-9a-f]{64}$", stored.Sha256);
        StoreAssert.SameInfo(info with { TotalWeight = content.Weights.Sum(), Bytes = 1000L * (24 + 8) + content.Labels!.Sum(Encoding.UTF8.GetByteCount) + content.Texts!.Sum(Encoding.UTF8.GetByteCount), Sha256 = stored.Sha256 }, stored);
        StoreAssert.SameInfo(stored, await Store.GetDatasetAsync(info.Id, Ct));
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task CreateDatasetAsync_InfoTotalWeightIgnored_ReturnsSumOfWeights()
    {
        var (info, content) = TestData.Dense(10, 2);

        var stored = await Store.CreateDatasetAsync(info with { TotalWeight = -1 }, content, Ct);

        var sum = 0.0;
        foreach (var w in content.Weights)
        {
            sum += w;
        }

        Assert.Equal(sum, stored.TotalWeight);
        Assert.Equal(sum, (await Store.GetDatasetAsync(info.Id, Ct))!.TotalWeight);
    }

    [Fact]
    public async Task CreateDatasetAsync_CreatedWithOffsetAndTicks_ComesBackUtcToTheMicrosecond()
    {
        var created = new DateTimeOffset(2025, 3, 4, 5, 6, 7, TimeSpan.FromHours(5.5)).AddTicks(1_234_567);
        var (info, content) = TestData.Dense(3, 1, created: created);

        var stored = await Store.CreateDatasetAsync(info, content, Ct);
        var loaded = await Store.GetDatasetAsync(info.Id, Ct);

        var expected = new DateTimeOffset(created.UtcTicks - 7, TimeSpan.Zero);
        Assert.Equal(expected, stored.Created);
        Assert.Equal(TimeSpan.Zero, stored.Created.Offset);
        Assert.Equal(expected, loaded!.Created);
        Assert.Equal(TimeSpan.Zero, loaded.Created.Offset);
        Assert.Equal(expected.UtcTicks, loaded.Created.UtcTicks);
    }

    [Fact]
    public async Task CreateDatasetAsync_BinaryMaccsNotWholeWords_RoundTripsWordsIdsAndSmiles()
    {
        var (info, content) = TestData.Fingerprints(TestData.Chem500.Value, FingerprintType.Maccs);

        var stored = await Store.CreateDatasetAsync(info, content, Ct);

        Assert.Equal(167, stored.Bits);
        Assert.Equal("rdkit-maccs-167", (await Store.GetDatasetAsync(info.Id, Ct))!.FingerprintType);
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task CreateDatasetAsync_CompoundsWithoutVectors_RoundTripsIdsAndSmiles()
    {
        var compounds = TestData.Chem500.Value;
        var info = new DatasetInfo { Id = Guid.NewGuid(), Name = "chem-500", Kind = DatasetKind.Compounds, Count = compounds.Count, Created = TestData.Epoch };
        var content = new DatasetContent { Weights = new double[compounds.Count], Labels = [.. compounds.Ids], Texts = [.. compounds.Smiles] };

        await Store.CreateDatasetAsync(info, content, Ct);

        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task CreateDatasetAsync_NoPoints_RoundTripsEmptyArrays()
    {
        var (info, content) = TestData.Dense(0, 4);

        await Store.CreateDatasetAsync(info, content, Ct);

        var loaded = await Store.ReadDatasetAsync(info.Id, Ct);
        StoreAssert.SameContent(content, loaded);
        Assert.Empty(loaded!.Values!);
        Assert.Equal(0, (await Store.GetDatasetAsync(info.Id, Ct))!.Count);
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(0, 1)]
    [InlineData(0, 300)]
    [InlineData(123, 77)]
    [InlineData(299, 1)]
    [InlineData(150, 0)]
    public async Task ReadDatasetRowsAsync_DenseWithLabelsAndTexts_IsTheWholeReadsSlice(int start, int count)
    {
        var (info, content) = TestData.Dense(300, 3, seed: 7, labels: true, texts: true);
        await Store.CreateDatasetAsync(info, content, Ct);

        var rows = await Store.ReadDatasetRowsAsync(info.Id, start, count, Ct);

        StoreAssert.SameContent(Slice(content, start, count, perRow: 3), rows);
    }

    [Fact]
    public async Task ReadDatasetRowsAsync_FingerprintPartitions_TogetherAreTheWholeDataset()
    {
        var (info, content) = TestData.Fingerprints(TestData.Chem500.Value, FingerprintType.Ecfp4);
        await Store.CreateDatasetAsync(info, content, Ct);

        // The grid's cut: 7 partitions of 500 rows, as PartitionKey.Rows makes them.
        var words = content.Words!.Length / info.Count;
        for (var p = 0; p < 7; p++)
        {
            var (start, end) = ((int)((long)p * info.Count / 7), (int)((long)(p + 1) * info.Count / 7));
            StoreAssert.SameContent(Slice(content, start, end - start, words), await Store.ReadDatasetRowsAsync(info.Id, start, end - start, Ct));
        }
    }

    [Theory]
    [InlineData(-1, 1)]
    [InlineData(0, -1)]
    [InlineData(0, 301)]
    [InlineData(300, 1)]
    [InlineData(250, 51)]
    [InlineData(int.MaxValue, 1)]
    public async Task ReadDatasetRowsAsync_RangeOutsideTheRows_IsRefused(int start, int count)
    {
        var (info, content) = TestData.Dense(300, 2, seed: 8);
        await Store.CreateDatasetAsync(info, content, Ct);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Store.ReadDatasetRowsAsync(info.Id, start, count, Ct));
    }

    [Fact]
    public async Task ReadDatasetRowsAsync_UnknownId_IsNull() =>
        Assert.Null(await Store.ReadDatasetRowsAsync(Guid.NewGuid(), 0, 1, Ct));

    private static DatasetContent Slice(DatasetContent content, int start, int count, int perRow) => new()
    {
        Values = content.Values?[(start * perRow)..((start + count) * perRow)],
        Words = content.Words?[(start * perRow)..((start + count) * perRow)],
        Weights = content.Weights[start..(start + count)],
        Labels = content.Labels?[start..(start + count)],
        Texts = content.Texts?[start..(start + count)],
    };

    [Fact]
    public async Task CreateDatasetAsync_NationalCensus_RoundTripsExactly()
    {
        var (info, content) = TestData.NationalCensus.Value;
        info = info with { Id = Guid.NewGuid() };
        Assert.Equal(242_335, info.Count);

        var stored = await Store.CreateDatasetAsync(info, content, Ct);

        Assert.Equal(content.Weights.Sum(), stored.TotalWeight, 1e-6);
        StoreAssert.SameInfo(stored, await Store.GetDatasetAsync(info.Id, Ct));
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task CreateDatasetAsync_Compounds40kEcfp4_RoundTripsWordsIdsAndSmilesExactly()
    {
        var (info, content) = TestData.Compounds40k.Value;
        info = info with { Id = Guid.NewGuid() };
        Assert.Equal(40_000, info.Count);

        await Store.CreateDatasetAsync(info, content, Ct);

        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    // ---- Imports in parts ----

    private static async IAsyncEnumerable<DatasetContent> Parts(DatasetContent content, int dimension, int size, Func<int, Task>? beforePart = null)
    {
        for (int start = 0, part = 0; start < content.Weights.Length; start += size, part++)
        {
            if (beforePart is not null)
            {
                await beforePart(part);
            }

            yield return Slice(content, start, Math.Min(size, content.Weights.Length - start), dimension);
        }
    }

    [Fact]
    public async Task ImportDatasetAsync_InUnevenParts_IsWhatCreateStores_TotalWeightSummedInPointOrder()
    {
        var (info, content) = TestData.Dense(10_000, 3, seed: 31, labels: true, texts: true);

        var imported = await Store.ImportDatasetAsync(info, Parts(content, 3, 777), Ct);

        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
        StoreAssert.SameInfo(imported, await Store.GetDatasetAsync(info.Id, Ct));
        var whole = await Store.CreateDatasetAsync(info with { Id = Guid.NewGuid() }, content, Ct);
        Assert.Equal(BitConverter.DoubleToInt64Bits(whole.TotalWeight), BitConverter.DoubleToInt64Bits(imported.TotalWeight));
        StoreAssert.SameContent(Slice(content, 776, 3, perRow: 3), await Store.ReadDatasetRowsAsync(info.Id, 776, 3, Ct));
    }

    [Fact]
    public async Task Sha256_TheSameContentInAnyParts_TheSameDigest_AnyChangedValueAnother()
    {
        var (info, content) = TestData.Dense(5_000, 3, seed: 33, labels: true, texts: true);

        var whole = await Store.CreateDatasetAsync(info, content, Ct);
        var inParts = await Store.ImportDatasetAsync(info with { Id = Guid.NewGuid(), Name = "another name" }, Parts(content, 3, 333), Ct);
        var weight = content with { Weights = [.. content.Weights.Select((w, i) => i == 4_321 ? BitConverter.Int64BitsToDouble(BitConverter.DoubleToInt64Bits(w) ^ 1) : w)] };
        var label = content with { Labels = [.. content.Labels!.Select((l, i) => i == 17 ? l + "x" : l)] };
        var moved = content with { Texts = [.. content.Texts!.Select((t, i) => i == 0 ? t + content.Texts![1] : i == 1 ? "" : t)] };

        Assert.Matches("^[0-9a-f]{64}$", whole.Sha256);
        Assert.Equal(whole.Sha256, inParts.Sha256);
        Assert.Equal(whole.Sha256, (await Store.GetDatasetAsync(inParts.Id, Ct))!.Sha256);
        Assert.Equal(whole.Sha256, (await Store.ListDatasetsAsync(info.Tenant, 100, Ct)).Single(d => d.Id == info.Id).Sha256);
        var others = new List<string?>();
        foreach (var changed in new[] { weight, label, moved })
        {
            others.Add((await Store.CreateDatasetAsync(info with { Id = Guid.NewGuid() }, changed, Ct)).Sha256);
        }

        Assert.Equal(4, others.Append(whole.Sha256).Distinct().Count());
    }

    [Fact]
    public async Task ImportDatasetAsync_NoParts_IsAnEmptyDataset()
    {
        var (info, _) = TestData.Dense(0, 2, seed: 32);

        await Store.ImportDatasetAsync(info, AsyncEnumerable.Empty<DatasetContent>(), Ct);

        Assert.Equal(0, (await Store.GetDatasetAsync(info.Id, Ct))!.Count);
        Assert.Empty((await Store.ReadDatasetAsync(info.Id, Ct))!.Weights);
    }

    public static TheoryData<string, string> InvalidImports => new()
    {
        { "nan-in-third-part", "Weights[2104] is NaN" },
        { "fewer-rows", "Weights has 3000 entries; expected Count = 4000" },
        { "more-rows", "Weights has 4500 entries; expected Count = 4000" },
        { "labels-in-one-part", "every part has Labels (and Texts) or none does" },
        { "short-values", "Values has 2 entries; expected Count·Dimension = 2000" },
    };

    [Theory]
    [MemberData(nameof(InvalidImports))]
    public async Task ImportDatasetAsync_ABadPartOrCount_ThrowsAndLeavesNothing_TheIdFreeAgain(string invalid, string message)
    {
        var (info, content) = TestData.Dense(4000, 2, seed: 33);
        async IAsyncEnumerable<DatasetContent> Bad()
        {
            await Task.Yield();
            for (var part = 0; part < 4; part++)
            {
                var slice = Slice(content, part * 1000, 1000, perRow: 2);
                switch (invalid)
                {
                    case "nan-in-third-part" when part == 2:
                        slice.Weights[104] = double.NaN;
                        break;
                    case "fewer-rows" when part == 3:
                        yield break;
                    case "labels-in-one-part" when part == 1:
                        slice = slice with { Labels = [.. Enumerable.Range(0, 1000).Select(i => $"l{i}")] };
                        break;
                    case "short-values" when part == 3:
                        slice = slice with { Values = [1, 2] };
                        break;
                }

                yield return slice;
            }

            if (invalid == "more-rows")
            {
                yield return Slice(content, 0, 500, perRow: 2);
            }
        }

        var error = await Assert.ThrowsAnyAsync<ArgumentException>(() => Store.ImportDatasetAsync(info, Bad(), Ct));

        Assert.Contains(message, error.Message, StringComparison.Ordinal);
        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        Assert.Null(await Store.ReadDatasetAsync(info.Id, Ct));
        Assert.DoesNotContain(info.Id, (await Store.ListDatasetsAsync(null, 1000, Ct)).Select(d => d.Id));
        await Store.CreateDatasetAsync(info, content, Ct);
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task ImportDatasetAsync_WhileItRuns_IsSeenByNoOne_OtherWritesGoOn_AndCancelledLeavesNothing()
    {
        var (info, content) = TestData.Dense(6000, 2, seed: 34);
        var secondPart = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var proceed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        var importing = Store.ImportDatasetAsync(info, Parts(content, 2, 2000, async part =>
        {
            if (part == 1)
            {
                secondPart.SetResult();
                await proceed.Task;
            }
        }), cancel.Token);
        await secondPart.Task.WaitAsync(Ct);

        // The first part is written; the dataset is nobody's yet — not even to delete.
        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        Assert.Null(await Store.ReadDatasetAsync(info.Id, Ct));
        Assert.DoesNotContain(info.Id, (await Store.ListDatasetsAsync(null, 1000, Ct)).Select(d => d.Id));
        Assert.False(await Store.DeleteDatasetAsync(info.Id, Ct));
        // Another writer is not held up by the import between its parts (a second store instance: another process).
        var other = await OpenInitializedAsync(Location);
        var job = TestData.Job(TestData.UniqueService("during-import"));
        await other.InsertJobAsync(job, Ct).WaitAsync(TimeSpan.FromSeconds(20), Ct);
        await other.CreateDatasetAsync(TestData.Dense(10, 2, seed: 35).Info, TestData.Dense(10, 2, seed: 35).Content, Ct).WaitAsync(TimeSpan.FromSeconds(20), Ct);

        await cancel.CancelAsync();
        proceed.SetResult();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => importing);
        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        await Store.ImportDatasetAsync(info, Parts(content, 2, 2000), Ct);
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    public static TheoryData<string, string> InvalidContents => new()
    {
        { "dense-values-short", "Values has 29 entries; expected Count·Dimension = 30" },
        { "dense-values-null", "Values must not be null" },
        { "dense-dimension-zero", "Dimension must be at least 1" },
        { "dense-with-words", "Words must be null" },
        { "dense-with-bits", "Bits must be 0" },
        { "census-dimension-three", "Census dataset has Dimension 2" },
        { "binary-words-short", "Words has 20 entries; expected Count·((Bits+63)/64) = 30" },
        { "binary-bits-zero", "Bits must be at least 1" },
        { "binary-with-values", "Values must be null" },
        { "compounds-with-words", "Values and Words must be null" },
        { "weights-short", "Weights has 9 entries; expected Count = 10" },
        { "weight-nan", "Weights[4] is NaN" },
        { "labels-wrong-length", "Labels has 11 entries; expected null or Count = 10" },
        { "texts-wrong-length", "Texts has 3 entries; expected null or Count = 10" },
        { "label-missing", "Labels[7] is null" },
        { "negative-count", "Count must not be negative" },
        { "empty-id", "Id must not be Guid.Empty" },
    };

    [Theory]
    [MemberData(nameof(InvalidContents))]
    public async Task CreateDatasetAsync_ContentDisagreesWithInfo_ThrowsArgumentExceptionAndStoresNothing(string invalid, string message)
    {
        var (info, content) = InvalidDataset(invalid);

        var error = await Assert.ThrowsAnyAsync<ArgumentException>(() => Store.CreateDatasetAsync(info, content, Ct));

        Assert.Contains(message, error.Message, StringComparison.Ordinal);
        if (info.Id != Guid.Empty)
        {
            Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
            Assert.Null(await Store.ReadDatasetAsync(info.Id, Ct));
        }
    }

    private static (DatasetInfo, DatasetContent) InvalidDataset(string invalid)
    {
        var (dense, denseContent) = TestData.Dense(10, 3, labels: true);
        var binary = dense with { Kind = DatasetKind.Binary, Dimension = 0, Bits = 167 };
        var binaryContent = new DatasetContent { Words = new ulong[30], Weights = new double[10] };
        var weights = denseContent.Weights;
        return invalid switch
        {
            "dense-values-short" => (dense, denseContent with { Values = new double[29] }),
            "dense-values-null" => (dense, denseContent with { Values = null }),
            "dense-dimension-zero" => (dense with { Dimension = 0 }, denseContent with { Values = [] }),
            "dense-with-words" => (dense, denseContent with { Words = new ulong[10] }),
            "dense-with-bits" => (dense with { Bits = 64 }, denseContent),
            "census-dimension-three" => (dense with { Kind = DatasetKind.Census }, denseContent),
            "binary-words-short" => (binary, binaryContent with { Words = new ulong[20] }),
            "binary-bits-zero" => (binary with { Bits = 0 }, binaryContent),
            "binary-with-values" => (binary, binaryContent with { Values = new double[10] }),
            "compounds-with-words" => (binary with { Kind = DatasetKind.Compounds, Bits = 0 }, binaryContent),
            "weights-short" => (dense, denseContent with { Weights = weights[..9] }),
            "weight-nan" => (dense, denseContent with { Weights = [.. weights[..4], double.NaN, .. weights[5..]] }),
            "labels-wrong-length" => (dense, denseContent with { Labels = new string[11] }),
            "texts-wrong-length" => (dense, denseContent with { Texts = ["a", "b", "c"] }),
            "label-missing" => (dense, denseContent with { Labels = [.. denseContent.Labels![..7], null!, .. denseContent.Labels[8..]] }),
            "negative-count" => (dense with { Count = -1 }, denseContent),
            "empty-id" => (dense with { Id = Guid.Empty }, denseContent),
            _ => throw new ArgumentOutOfRangeException(nameof(invalid), invalid, "unknown case"),
        };
    }

    [Fact]
    public async Task CreateDatasetAsync_IdAlreadyUsed_ThrowsAndKeepsTheOriginal()
    {
        var (info, content) = TestData.Dense(20, 2, seed: 1);
        var (_, other) = TestData.Dense(30, 2, seed: 2);
        await Store.CreateDatasetAsync(info, content, Ct);

        await Assert.ThrowsAsync<InvalidOperationException>(() => Store.CreateDatasetAsync(info with { Count = 30, Name = "other" }, other, Ct));

        Assert.Equal(info.Name, (await Store.GetDatasetAsync(info.Id, Ct))!.Name);
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task CreateDatasetAsync_CancelledWhileImporting_StoresAllOrNothing()
    {
        var (info, content) = TestData.NationalCensus.Value;
        info = info with { Id = Guid.NewGuid() };
        using var cancellation = CancellationTokenSource.CreateLinkedTokenSource(Ct);

        // The import takes a good fraction of a second; cancelling meanwhile must leave no trace.
        cancellation.CancelAfter(TimeSpan.FromMilliseconds(100));
        var cancelled = false;
        try
        {
            await Task.Run(() => Store.CreateDatasetAsync(info, content, cancellation.Token), Ct);
        }
        catch (OperationCanceledException) when (!Ct.IsCancellationRequested)
        {
            cancelled = true;
        }

        TestContext.Current.TestOutputHelper?.WriteLine(cancelled ? "cancelled during the import" : "the import finished before the cancellation");
        if (cancelled)
        {
            Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
            Assert.Null(await Store.ReadDatasetAsync(info.Id, Ct));
            Assert.DoesNotContain(await Store.ListDatasetsAsync(null, 10_000, Ct), d => d.Id == info.Id);
        }
        else
        {
            StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
        }
    }

    [Fact]
    public async Task CreateDatasetAsync_ManyInParallel_AllRoundTripIntact()
    {
        var datasets = Enumerable.Range(0, 8).Select(i => TestData.Dense(3000 + i, 2 + (i % 3), seed: 100 + i, labels: i % 2 == 0)).ToArray();

        await Task.WhenAll(datasets.Select(d => Task.Run(() => Store.CreateDatasetAsync(d.Info, d.Content, Ct), Ct)));

        foreach (var (info, content) in datasets)
        {
            Assert.Equal(info.Count, (await Store.GetDatasetAsync(info.Id, Ct))!.Count);
            StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
        }
    }

    [Fact]
    public async Task ReadDatasetAsync_WhileOtherDatasetsAreWritten_ReadsConsistentContent()
    {
        var (info, content) = TestData.Dense(20_000, 2, seed: 7, labels: true);
        await Store.CreateDatasetAsync(info, content, Ct);
        var writers = Enumerable.Range(0, 4).Select(i => TestData.Dense(5000, 3, seed: 200 + i)).ToArray();

        var writing = Task.WhenAll(writers.Select(d => Task.Run(() => Store.CreateDatasetAsync(d.Info, d.Content, Ct), Ct)));
        var reading = Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() => Store.ReadDatasetAsync(info.Id, Ct), Ct)));
        await writing;

        foreach (var read in await reading)
        {
            StoreAssert.SameContent(content, read);
        }
    }

    [Fact]
    public async Task UnknownIds_GetReadDelete_GiveNullNullFalse()
    {
        var id = Guid.NewGuid();

        Assert.Null(await Store.GetDatasetAsync(id, Ct));
        Assert.Null(await Store.ReadDatasetAsync(id, Ct));
        Assert.False(await Store.DeleteDatasetAsync(id, Ct));
        Assert.Null(await Store.GetJobAsync(id, Ct));
        Assert.Null(await Store.GetArtifactAsync(id, "assignments", Ct));
        Assert.Empty(await Store.ListArtifactsAsync(id, Ct));
    }

    [Fact]
    public async Task FindDatasetUserAsync_QueuedOrRunningJobsAndRunsNamingIt_OthersNot()
    {
        var dataset = Guid.NewGuid();
        var service = TestData.UniqueService("users");
        Assert.Null(await Store.FindDatasetUserAsync(dataset, Ct));

        // Ended jobs, and a running one on another dataset, do not use it.
        foreach (var state in new[] { JobState.Succeeded, JobState.Failed, JobState.Cancelled, JobState.Interrupted })
        {
            await Store.InsertJobAsync(TestData.Job(service, state) with { DatasetId = dataset }, Ct);
        }

        await Store.InsertJobAsync(TestData.Job(service, JobState.Running) with { DatasetId = Guid.NewGuid() }, Ct);
        Assert.Null(await Store.FindDatasetUserAsync(dataset, Ct));

        // A run in flight names it among its steps' outputs so far (the result), or in its request.
        var run = TestData.Job("gateway", JobState.Running, TestData.Epoch.AddSeconds(2)) with { ResultJson = $$$"""{"steps":[{"outputs":{"dataset":"{{{dataset}}}"}}]}""" };
        await Store.InsertJobAsync(run, Ct);
        Assert.Equal(run.Id, (await Store.FindDatasetUserAsync(dataset, Ct))?.Id);

        // The oldest user is named: a queued job naming it in its parameters, older than the run.
        var queued = TestData.Job(service, JobState.Queued, TestData.Epoch.AddSeconds(1)) with { ParametersJson = $$"""{"datasetId":"{{dataset}}"}""" };
        await Store.InsertJobAsync(queued, Ct);
        Assert.Equal(queued.Id, (await Store.FindDatasetUserAsync(dataset, Ct))?.Id);

        // And a job that runs on it, older still.
        var running = TestData.Job(service, JobState.Running, TestData.Epoch) with { DatasetId = dataset };
        await Store.InsertJobAsync(running, Ct);
        Assert.Equal(running, await Store.FindDatasetUserAsync(dataset, Ct));

        foreach (var user in new[] { running, queued, run })
        {
            await Store.UpdateJobAsync(user with { State = JobState.Succeeded }, Ct);
        }

        Assert.Null(await Store.FindDatasetUserAsync(dataset, Ct));
    }

    [Fact]
    public async Task RenameDatasetAsync_ChangesTheNameOnly_AndAnUnknownIdIsFalse()
    {
        var (info, content) = TestData.Dense(300, 2, seed: 5, labels: true);
        await Store.CreateDatasetAsync(info, content, Ct);
        var before = await Store.GetDatasetAsync(info.Id, Ct);

        Assert.True(await Store.RenameDatasetAsync(info.Id, "Indiana, south — 'v2'", Ct));

        var after = await Store.GetDatasetAsync(info.Id, Ct);
        Assert.Equal("Indiana, south — 'v2'", after!.Name);
        Assert.Equal((before!.Kind, before.Count, before.Created, before.Source, before.Bytes, before.Sha256, before.Tenant), (after.Kind, after.Count, after.Created, after.Source, after.Bytes, after.Sha256, after.Tenant));
        Assert.Equal(before.Metadata, after.Metadata);
        Assert.Equal("Indiana, south — 'v2'", (await Store.ListDatasetsAsync(info.Tenant, 100, Ct)).Single(d => d.Id == info.Id).Name);
        StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
        Assert.False(await Store.RenameDatasetAsync(Guid.NewGuid(), "nothing", Ct));
        await Assert.ThrowsAnyAsync<ArgumentException>(() => Store.RenameDatasetAsync(info.Id, " ", Ct));
    }

    [Fact]
    public async Task DeleteDatasetAsync_Existing_RemovesInfoAndPoints()
    {
        var (info, content) = TestData.Dense(500, 2, seed: 3, labels: true);
        await Store.CreateDatasetAsync(info, content, Ct);

        Assert.True(await Store.DeleteDatasetAsync(info.Id, Ct));

        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        Assert.Null(await Store.ReadDatasetAsync(info.Id, Ct));
        Assert.DoesNotContain(await Store.ListDatasetsAsync(null, 10_000, Ct), d => d.Id == info.Id);
        Assert.False(await Store.DeleteDatasetAsync(info.Id, Ct));

        // Had any of the 500 old points survived, the new 200 would collide with them or come back mixed.
        var (_, smaller) = TestData.Dense(200, 2, seed: 4);
        await Store.CreateDatasetAsync(info with { Count = 200 }, smaller, Ct);
        StoreAssert.SameContent(smaller, await Store.ReadDatasetAsync(info.Id, Ct));
    }

    [Fact]
    public async Task ListDatasetsAsync_Several_NewestFirstAndLimited()
    {
        var oldest = TestData.Dense(1, 1, created: TestData.Epoch.AddDays(-3));
        var middle = TestData.Dense(1, 1, created: TestData.Epoch.AddDays(-2));
        var newestFirstInserted = TestData.Dense(1, 1, created: TestData.Epoch.AddDays(-1));
        var newestLastInserted = TestData.Dense(1, 1, created: TestData.Epoch.AddDays(-1));
        foreach (var (info, content) in new[] { middle, oldest, newestFirstInserted, newestLastInserted })
        {
            await Store.CreateDatasetAsync(info, content, Ct);
        }

        var all = await Store.ListDatasetsAsync(null, 100_000, Ct);

        var mine = all.Where(d => d.Id == oldest.Info.Id || d.Id == middle.Info.Id || d.Id == newestFirstInserted.Info.Id || d.Id == newestLastInserted.Info.Id).Select(d => d.Id);
        Assert.Equal([newestLastInserted.Info.Id, newestFirstInserted.Info.Id, middle.Info.Id, oldest.Info.Id], mine);
        Assert.Equal(all.OrderByDescending(d => d.Created).Select(d => d.Created), all.Select(d => d.Created));
        Assert.Equal(all.Take(2).Select(d => d.Id), (await Store.ListDatasetsAsync(null, 2, Ct)).Select(d => d.Id));
        Assert.Empty(await Store.ListDatasetsAsync(null, 0, Ct));
        StoreAssert.SameInfo((await Store.GetDatasetAsync(middle.Info.Id, Ct))!, all.Single(d => d.Id == middle.Info.Id));
    }

    // ---- Jobs ----

    [Fact]
    public async Task InsertJobAsync_EveryFieldSet_RoundTrips()
    {
        var job = new JobRecord
        {
            Id = Guid.NewGuid(),
            Service = TestData.UniqueService("full"),
            Kind = "census-map",
            State = JobState.Failed,
            Created = TestData.Epoch,
            Started = TestData.Epoch.AddSeconds(1.5),
            Finished = TestData.Epoch.AddMinutes(3),
            QueueMilliseconds = 1500.25,
            ComputeMilliseconds = 178_499.75,
            DatasetId = Guid.NewGuid(),
            ParametersJson = """{"k": 12, "temperature": [1.0, 0.5]}""",
            ProgressJson = """{"iteration":412}""",
            ResultJson = """{ "clusters" : 12 }""",
            Error = "annealing diverged: ünïcødé ✓",
        };

        await Store.InsertJobAsync(job, Ct);

        Assert.Equal(job, await Store.GetJobAsync(job.Id, Ct));
    }

    [Fact]
    public async Task InsertJobAsync_OptionalFieldsNull_RoundTripsNulls()
    {
        var job = TestData.Job(TestData.UniqueService("nulls")) with { QueueMilliseconds = double.NaN, ComputeMilliseconds = -0.0 };

        await Store.InsertJobAsync(job, Ct);

        var loaded = await Store.GetJobAsync(job.Id, Ct);
        Assert.Equal(job, loaded);
        Assert.Null(loaded!.Started);
        Assert.Null(loaded.Finished);
        Assert.Null(loaded.DatasetId);
        Assert.Null(loaded.ProgressJson);
        Assert.Null(loaded.ResultJson);
        Assert.Null(loaded.Error);
        Assert.True(double.IsNaN(loaded.QueueMilliseconds));
    }

    [Fact]
    public async Task InsertJobAsync_TimestampsWithOffsetAndTicks_ComeBackUtcToTheMicrosecond()
    {
        // 100-ns ticks below the microsecond, at an offset of -7 h.
        var local = new DateTimeOffset(2026, 1, 2, 3, 4, 5, TimeSpan.FromHours(-7)).AddTicks(9_999_999);
        var job = TestData.Job(TestData.UniqueService("time")) with { Created = local, Started = local.AddTicks(-8), Finished = local.AddTicks(12) };

        await Store.InsertJobAsync(job, Ct);

        var loaded = await Store.GetJobAsync(job.Id, Ct);
        var micro = new DateTimeOffset(2026, 1, 2, 10, 4, 5, TimeSpan.Zero).AddTicks(9_999_990);
        Assert.Equal(micro, loaded!.Created);
        Assert.Equal(micro, loaded.Started);
        Assert.Equal(micro.AddTicks(20), loaded.Finished);
        Assert.All([loaded.Created, loaded.Started!.Value, loaded.Finished!.Value], t => Assert.Equal(TimeSpan.Zero, t.Offset));
    }

    [Fact]
    public async Task InsertJobAsync_IdAlreadyUsed_ThrowsAndKeepsTheOriginal()
    {
        var job = TestData.Job(TestData.UniqueService("dup"));
        await Store.InsertJobAsync(job, Ct);

        await Assert.ThrowsAsync<InvalidOperationException>(() => Store.InsertJobAsync(job with { Kind = "other" }, Ct));

        Assert.Equal(job, await Store.GetJobAsync(job.Id, Ct));
    }

    [Fact]
    public async Task UpdateJobAsync_Existing_ReplacesEveryFieldIncludingBackToNull()
    {
        var job = TestData.Job(TestData.UniqueService("update")) with
        {
            State = JobState.Running,
            Started = TestData.Epoch.AddSeconds(1),
            DatasetId = Guid.NewGuid(),
            ProgressJson = "{\"step\":1}",
            Error = "transient",
            Resources = new JobResources { CpuMilliseconds = null, AllocatedBytes = 1, PeakMemoryBytes = 2, Cores = null, ProcessJobs = 1 },
        };
        await Store.InsertJobAsync(job, Ct);
        var replacement = job with
        {
            Service = TestData.UniqueService("moved"),
            Kind = "butina",
            State = JobState.Succeeded,
            Created = TestData.Epoch.AddDays(1),
            Started = null,
            Finished = TestData.Epoch.AddDays(1).AddMinutes(2),
            QueueMilliseconds = 12,
            ComputeMilliseconds = 34,
            DatasetId = null,
            ParametersJson = "{}",
            ProgressJson = null,
            ResultJson = "{\"ok\":true}",
            Error = null,
            Resources = new JobResources { CpuMilliseconds = 1234.5, AllocatedBytes = 5_000_000_000, PeakMemoryBytes = 300_000_000, Cores = 2, ProcessJobs = 3 },
        };

        await Store.UpdateJobAsync(replacement, Ct);

        Assert.Equal(replacement, await Store.GetJobAsync(job.Id, Ct));
        Assert.Empty(await Store.ListJobsAsync(job.Service, null, 10, Ct));
    }

    [Fact]
    public async Task UpdateJobAsync_UnknownId_StoresTheRecord()
    {
        var job = TestData.Job(TestData.UniqueService("upsert"), JobState.Running);

        await Store.UpdateJobAsync(job, Ct);

        Assert.Equal(job, await Store.GetJobAsync(job.Id, Ct));
    }

    [Fact]
    public async Task ListJobsAsync_ByService_NewestFirstOnlyThatServiceAndLimited()
    {
        var service = TestData.UniqueService("list");
        var other = TestData.UniqueService("list-other");
        var jobs = Enumerable.Range(0, 5).Select(i => TestData.Job(service, created: TestData.Epoch.AddMinutes(i))).ToArray();
        var tie = TestData.Job(service, created: TestData.Epoch.AddMinutes(4));
        foreach (var job in new[] { jobs[2], jobs[0], jobs[4], jobs[1], jobs[3], tie, TestData.Job(other) })
        {
            await Store.InsertJobAsync(job, Ct);
        }

        var listed = await Store.ListJobsAsync(service, null, 100, Ct);

        Assert.Equal([tie, jobs[4], jobs[3], jobs[2], jobs[1], jobs[0]], listed);
        Assert.Equal([tie, jobs[4]], await Store.ListJobsAsync(service, null, 2, Ct));
        Assert.Empty(await Store.ListJobsAsync(service, null, 0, Ct));
        Assert.Empty(await Store.ListJobsAsync(TestData.UniqueService("nobody"), null, 100, Ct));
    }

    [Fact]
    public async Task ListJobsAsync_NullService_ListsEveryServiceNewestFirst()
    {
        var first = TestData.Job(TestData.UniqueService("all-a"), created: TestData.Epoch.AddYears(50));
        var second = TestData.Job(TestData.UniqueService("all-b"), created: TestData.Epoch.AddYears(50).AddTicks(10));
        await Store.InsertJobAsync(first, Ct);
        await Store.InsertJobAsync(second, Ct);

        var all = await Store.ListJobsAsync(null, null, 100_000, Ct);

        Assert.Equal([second.Id, first.Id], all.Where(j => j.Id == first.Id || j.Id == second.Id).Select(j => j.Id));
        Assert.Equal(all.OrderByDescending(j => j.Created).Select(j => j.Created), all.Select(j => j.Created));
        Assert.Equal(all.Take(3), await Store.ListJobsAsync(null, null, 3, Ct));
    }

    [Fact]
    public async Task QueryJobsAsync_Filters_SelectEveryCombinationAndCountBeforeThePage()
    {
        var service = TestData.UniqueService("query");
        var kinds = new[] { "census-places", "chem-40k", "census-indiana" };
        var states = new[] { JobState.Queued, JobState.Running, JobState.Succeeded, JobState.Failed };
        var jobs = Enumerable.Range(0, 60).Select(i => TestData.Job(service, states[i % 4], TestData.Epoch.AddMinutes(i)) with
        {
            Kind = kinds[i % 3],
            Tenant = i % 5 == 0 ? "other" : Tenants.Local,
        }).ToArray();
        foreach (var job in jobs.Reverse())
        {
            await Store.InsertJobAsync(job, Ct);
        }

        await Store.InsertJobAsync(TestData.Job(TestData.UniqueService("query-other")) with { Kind = kinds[0] }, Ct);

        var queries = new List<JobQuery>();
        foreach (var kind in new[] { null, kinds[0], kinds[1], "nothing" })
        {
            foreach (var state in new JobState?[] { null, JobState.Succeeded, JobState.Running })
            {
                foreach (var (from, before) in new (int?, int?)[] { (null, null), (10, null), (null, 45), (20, 21) })
                {
                    foreach (var tenant in new[] { null, Tenants.Local })
                    {
                        queries.Add(new JobQuery
                        {
                            Service = service, Tenant = tenant, Kind = kind, State = state,
                            CreatedFrom = from is { } f ? TestData.Epoch.AddMinutes(f) : null,
                            CreatedBefore = before is { } b ? TestData.Epoch.AddMinutes(b) : null,
                        });
                    }
                }
            }
        }

        foreach (var query in queries)
        {
            var expected = jobs
                .Where(j => (query.Tenant is null || j.Tenant == query.Tenant) && (query.Kind is null || j.Kind == query.Kind) && (query.State is null || j.State == query.State)
                    && (query.CreatedFrom is null || j.Created >= query.CreatedFrom) && (query.CreatedBefore is null || j.Created < query.CreatedBefore))
                .OrderByDescending(j => j.Created).ToArray();
            foreach (var (offset, limit) in new[] { (0, 100), (0, 3), (2, 3), (expected.Length - 1, 5), (expected.Length + 4, 5), (0, 0) })
            {
                var page = await Store.QueryJobsAsync(query with { Offset = Math.Max(0, offset), Limit = limit }, Ct);
                Assert.Equal(expected.Length, page.Total);
                Assert.Equal(expected.Skip(Math.Max(0, offset)).Take(limit).Select(j => j.Id), page.Jobs.Select(j => j.Id));
            }
        }
    }

    [Fact]
    public async Task QueryJobsAsync_NegativeOffset_IsRefused() =>
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Store.QueryJobsAsync(new JobQuery { Offset = -1 }, Ct));

    [Fact]
    public async Task MarkInterruptedAsync_MixedStates_InterruptsOnlyQueuedAndRunningOfThatService()
    {
        var service = TestData.UniqueService("restart");
        var neighbour = TestData.UniqueService("neighbour");
        var queued = TestData.Job(service, JobState.Queued);
        var running = TestData.Job(service, JobState.Running) with { Started = TestData.Epoch.AddSeconds(2), ProgressJson = "{\"step\":9}" };
        var finished = new[] { JobState.Succeeded, JobState.Failed, JobState.Cancelled, JobState.Interrupted }
            .Select(s => TestData.Job(service, s) with { Finished = TestData.Epoch.AddHours(1), Error = s == JobState.Failed ? "boom" : null })
            .ToArray();
        var neighbourRunning = TestData.Job(neighbour, JobState.Running);
        foreach (var job in finished.Append(queued).Append(running).Append(neighbourRunning))
        {
            await Store.InsertJobAsync(job, Ct);
        }

        var before = TruncatedNow();
        var count = await Store.MarkInterruptedAsync(service, "service restarted", Ct);
        var after = DateTimeOffset.UtcNow;

        Assert.Equal(2, count);
        foreach (var job in new[] { queued, running })
        {
            var loaded = (await Store.GetJobAsync(job.Id, Ct))!;
            Assert.InRange(loaded.Finished!.Value, before, after);
            Assert.Equal(job with { State = JobState.Interrupted, Error = "service restarted", Finished = loaded.Finished }, loaded);
        }

        foreach (var job in finished.Append(neighbourRunning))
        {
            Assert.Equal(job, await Store.GetJobAsync(job.Id, Ct));
        }

        Assert.Equal(0, await Store.MarkInterruptedAsync(service, "again", Ct));
        Assert.Equal(0, await Store.MarkInterruptedAsync(TestData.UniqueService("nobody"), "none", Ct));
    }

    private static DateTimeOffset TruncatedNow()
    {
        var now = DateTimeOffset.UtcNow;
        return new DateTimeOffset(now.UtcTicks - (now.UtcTicks % 10), TimeSpan.Zero);
    }

    [Fact]
    public async Task UpdateJobAsync_ManyJobsUpdatedInParallel_EveryLastUpdateKept()
    {
        var service = TestData.UniqueService("parallel");
        var jobs = Enumerable.Range(0, 16).Select(_ => TestData.Job(service)).ToArray();
        await Task.WhenAll(jobs.Select(j => Store.InsertJobAsync(j, Ct)));
        const int Updates = 25;

        await Task.WhenAll(jobs.Select(job => Task.Run(async () =>
        {
            for (var step = 1; step <= Updates; step++)
            {
                await Store.UpdateJobAsync(job with { State = JobState.Running, ProgressJson = $"{{\"step\":{step}}}", ComputeMilliseconds = step }, Ct);
                _ = await Store.GetJobAsync(job.Id, Ct);
            }
        }, Ct)));

        foreach (var job in jobs)
        {
            Assert.Equal(job with { State = JobState.Running, ProgressJson = $"{{\"step\":{Updates}}}", ComputeMilliseconds = Updates }, await Store.GetJobAsync(job.Id, Ct));
        }

        Assert.Equal(jobs.Length, (await Store.ListJobsAsync(service, null, 100, Ct)).Count);
    }

    [Fact]
    public async Task UpdateJobAsync_OneJobFromManyThreads_EndsAsOneWholeWrite()
    {
        var job = TestData.Job(TestData.UniqueService("contended"));
        await Store.InsertJobAsync(job, Ct);
        var writes = Enumerable.Range(1, 40)
            .Select(i => job with { State = JobState.Running, ProgressJson = $"{{\"writer\":{i}}}", ComputeMilliseconds = i, Error = $"writer {i}" })
            .ToArray();

        await Task.WhenAll(writes.Select(w => Task.Run(() => Store.UpdateJobAsync(w, Ct), Ct)));

        // Whichever write landed last, the record is entirely that write, never a mix.
        var loaded = (await Store.GetJobAsync(job.Id, Ct))!;
        Assert.Contains(loaded, writes);
    }

    // ---- Artifacts ----

    [Fact]
    public async Task PutArtifactAsync_Several_GetAndListRoundTrip()
    {
        var job = Guid.NewGuid();
        var assignments = new byte[5_000_000];
        new Random(5).NextBytes(assignments);
        var map = new Artifact("map.png", "image/png", [0x89, 0x50, 0x4E, 0x47]);
        var geo = new Artifact("clusters.geojson", "application/geo+json", Encoding.UTF8.GetBytes("{\"type\":\"FeatureCollection\"}"));
        var empty = new Artifact("empty", "application/octet-stream", []);

        foreach (var artifact in new[] { map, new Artifact("assignments", "application/octet-stream", assignments), geo, empty })
        {
            await Store.PutArtifactAsync(job, artifact, Ct);
        }

        var loaded = await Store.GetArtifactAsync(job, "assignments", Ct);
        Assert.Equal("application/octet-stream", loaded!.ContentType);
        Assert.True(assignments.AsSpan().SequenceEqual(loaded.Data));
        Assert.Equal(map.Data, (await Store.GetArtifactAsync(job, "map.png", Ct))!.Data);
        Assert.Empty((await Store.GetArtifactAsync(job, "empty", Ct))!.Data);
        static string Sha(byte[] data) => Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(data));
        Assert.Equal(
            [new("assignments", "application/octet-stream", 5_000_000L, Sha(assignments)), new("clusters.geojson", "application/geo+json", geo.Data.Length, Sha(geo.Data)),
             new("empty", "application/octet-stream", 0L, Sha([])), new ArtifactEntry("map.png", "image/png", 4L, Sha(map.Data))],
            await Store.ListArtifactsAsync(job, Ct));
        Assert.Null(await Store.GetArtifactAsync(job, "missing", Ct));
        Assert.Null(await Store.GetArtifactAsync(Guid.NewGuid(), "map.png", Ct));
    }

    [Fact]
    public async Task PutArtifactAsync_SameName_ReplacesDataAndContentType()
    {
        var job = Guid.NewGuid();
        await Store.PutArtifactAsync(job, new Artifact("result", "text/plain", [1, 2, 3]), Ct);

        await Store.PutArtifactAsync(job, new Artifact("result", "application/json", [9]), Ct);

        var loaded = await Store.GetArtifactAsync(job, "result", Ct);
        Assert.Equal("application/json", loaded!.ContentType);
        Assert.Equal([9], loaded.Data);
        Assert.Equal([new ArtifactEntry("result", "application/json", 1L, Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData([9])))], await Store.ListArtifactsAsync(job, Ct));
    }

    // ---- Persistence and sharing ----

    [Fact]
    public async Task Store_ReopenedAfterDispose_KeepsDatasetsJobsAndArtifacts()
    {
        var (info, content) = TestData.Dense(2000, 2, seed: 11, labels: true, texts: true);
        info = info with { Metadata = new Dictionary<string, string> { ["kept"] = "yes" } };
        var job = TestData.Job(TestData.UniqueService("restart")) with { State = JobState.Succeeded, ResultJson = "{\"k\":3}", DatasetId = info.Id };
        var artifact = new Artifact("assignments", "application/octet-stream", [1, 2, 3, 4]);
        var stored = await Store.CreateDatasetAsync(info, content, Ct);
        await Store.InsertJobAsync(job, Ct);
        await Store.PutArtifactAsync(job.Id, artifact, Ct);

        await Store.DisposeAsync();
        var reopened = await OpenInitializedAsync(Location);

        StoreAssert.SameInfo(stored, await reopened.GetDatasetAsync(info.Id, Ct));
        StoreAssert.SameContent(content, await reopened.ReadDatasetAsync(info.Id, Ct));
        Assert.Equal(job, await reopened.GetJobAsync(job.Id, Ct));
        Assert.Equal(artifact.Data, (await reopened.GetArtifactAsync(job.Id, artifact.Name, Ct))!.Data);
    }

    [Fact]
    public async Task TwoInstances_WritingAtOnce_EachSeesAllOfTheOthersWrites()
    {
        // Two instances on one storage, as two service processes on one machine would be.
        var other = await OpenInitializedAsync(Location);
        var service = TestData.UniqueService("shared");
        var jobs = Enumerable.Range(0, 60).Select(_ => TestData.Job(service)).ToArray();
        var datasets = Enumerable.Range(0, 4).Select(i => TestData.Dense(4000, 2, seed: 300 + i)).ToArray();

        await Task.WhenAll(
            jobs.Select((j, i) => Task.Run(() => (i % 2 == 0 ? Store : other).InsertJobAsync(j, Ct), Ct))
                .Concat(datasets.Select((d, i) => Task.Run(() => (i % 2 == 0 ? other : Store).CreateDatasetAsync(d.Info, d.Content, Ct), Ct))));

        Assert.Equal(jobs.Length, (await Store.ListJobsAsync(service, null, 1000, Ct)).Count);
        Assert.Equal(jobs.Length, (await other.ListJobsAsync(service, null, 1000, Ct)).Count);
        foreach (var (info, content) in datasets)
        {
            StoreAssert.SameContent(content, await Store.ReadDatasetAsync(info.Id, Ct));
            StoreAssert.SameContent(content, await other.ReadDatasetAsync(info.Id, Ct));
        }
    }

    // ---- Tenants ----

    [Fact]
    public async Task Tenants_DatasetsAndJobs_KeepTheirOwnerAndListOnlyTheirs()
    {
        var tenant = $"t-{Guid.NewGuid():N}";
        var (mine, content) = TestData.Dense(5, 2, seed: 21);
        var (local, localContent) = TestData.Dense(5, 2, seed: 22);
        await Store.CreateDatasetAsync(mine with { Tenant = tenant }, content, Ct);
        await Store.CreateDatasetAsync(local, localContent, Ct);
        var service = TestData.UniqueService("tenants");
        var job = TestData.Job(service) with { Tenant = tenant };
        await Store.InsertJobAsync(job, Ct);
        await Store.InsertJobAsync(TestData.Job(service), Ct);

        Assert.Equal(tenant, (await Store.GetDatasetAsync(mine.Id, Ct))!.Tenant);
        Assert.Equal(Tenants.Local, (await Store.GetDatasetAsync(local.Id, Ct))!.Tenant);
        Assert.Equal([mine.Id], (await Store.ListDatasetsAsync(tenant, 100, Ct)).Select(d => d.Id));
        Assert.DoesNotContain(await Store.ListDatasetsAsync(Tenants.Local, 10_000, Ct), d => d.Id == mine.Id);
        Assert.Contains(await Store.ListDatasetsAsync(null, 10_000, Ct), d => d.Id == mine.Id);

        Assert.Equal(tenant, (await Store.GetJobAsync(job.Id, Ct))!.Tenant);
        Assert.Equal([job.Id], (await Store.ListJobsAsync(service, tenant, 100, Ct)).Select(j => j.Id));
        Assert.Equal([job.Id], (await Store.ListJobsAsync(null, tenant, 100, Ct)).Select(j => j.Id));
        Assert.Equal(2, (await Store.ListJobsAsync(service, null, 100, Ct)).Count);

        // An update may not silently move a job to another tenant's view: the record is replaced whole.
        await Store.UpdateJobAsync(job with { State = JobState.Running }, Ct);
        Assert.Equal(tenant, (await Store.GetJobAsync(job.Id, Ct))!.Tenant);
    }

    [Theory]
    [InlineData("")]
    [InlineData("Upper")]
    [InlineData("-leading")]
    [InlineData("has space")]
    [InlineData("x\u0000")]
    public async Task Tenants_InvalidName_RefusedAndNothingStored(string tenant)
    {
        var (info, content) = TestData.Dense(3, 1);
        await Assert.ThrowsAsync<ArgumentException>(() => Store.CreateDatasetAsync(info with { Tenant = tenant }, content, Ct));
        var job = TestData.Job(TestData.UniqueService("bad-tenant")) with { Tenant = tenant };
        await Assert.ThrowsAsync<ArgumentException>(() => Store.InsertJobAsync(job, Ct));
        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        Assert.Null(await Store.GetJobAsync(job.Id, Ct));
    }

    // ---- API keys ----

    [Fact]
    public async Task ApiKeys_InsertGetListRevoke_RoundTripAndRevokeOnce()
    {
        var tenant = $"keys-{Guid.NewGuid():N}";
        var first = TestData.ApiKey(tenant, ["read", "run"]);
        var second = TestData.ApiKey(tenant, ["admin"]) with { Created = first.Created.AddSeconds(1) };
        await Store.InsertApiKeyAsync(second, int.MaxValue, Ct);
        await Store.InsertApiKeyAsync(first, int.MaxValue, Ct);
        await Store.InsertApiKeyAsync(TestData.ApiKey("someone-else", ["read"]), int.MaxValue, Ct);

        var read = await Store.GetApiKeyAsync(first.Id, Ct);
        Assert.NotNull(read);
        Assert.Equal(first.Tenant, read.Tenant);
        Assert.Equal(first.Name, read.Name);
        Assert.Equal(first.Scopes, read.Scopes);
        Assert.Equal(first.SecretHash, read.SecretHash);
        Assert.Equal(StoreTimeOf(first.Created), read.Created);
        Assert.Null(read.Revoked);
        Assert.Equal([first.Id, second.Id], (await Store.ListApiKeysAsync(tenant, Ct)).Select(k => k.Id));
        Assert.Null(await Store.GetApiKeyAsync("0000000000000000", Ct));

        var when = TestData.Epoch.AddHours(3);
        Assert.True(await Store.RevokeApiKeyAsync(first.Id, when, Ct));
        Assert.False(await Store.RevokeApiKeyAsync(first.Id, when.AddHours(1), Ct)); // once
        Assert.False(await Store.RevokeApiKeyAsync("0000000000000000", when, Ct));
        Assert.Equal(StoreTimeOf(when), (await Store.GetApiKeyAsync(first.Id, Ct))!.Revoked);
        Assert.Null((await Store.GetApiKeyAsync(second.Id, Ct))!.Revoked);

        await Assert.ThrowsAsync<InvalidOperationException>(() => Store.InsertApiKeyAsync(first with { Name = "again" }, int.MaxValue, Ct));
        await Assert.ThrowsAsync<ArgumentException>(() => Store.InsertApiKeyAsync(TestData.ApiKey(tenant, ["read"]) with { SecretHash = [1, 2, 3] }, int.MaxValue, Ct));
        await Assert.ThrowsAsync<ArgumentException>(() => Store.InsertApiKeyAsync(TestData.ApiKey("Not A Tenant", ["read"]), int.MaxValue, Ct));
    }

    [Fact]
    public async Task ApiKeys_AtMostMaxLiveKeysPerTenant_UnderContention_RevokedOnesFreeARoom()
    {
        for (var trial = 0; trial < 10; trial++)
        {
            var tenant = $"keys-{Guid.NewGuid():N}";
            using var start = new Barrier(16);
            var outcomes = await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => Task.Run(async () =>
            {
                start.SignalAndWait(Ct);
                try
                {
                    await Store.InsertApiKeyAsync(TestData.ApiKey(tenant, ["read"]), 5, Ct);
                    return true;
                }
                catch (QuotaExceededException refused)
                {
                    Assert.Contains("5 keys that are not revoked", refused.Message, StringComparison.Ordinal);
                    return false;
                }
            }, Ct)));

            Assert.Equal(5, outcomes.Count(created => created));
            var keys = await Store.ListApiKeysAsync(tenant, Ct);
            Assert.Equal(5, keys.Count);
            Assert.True(await Store.RevokeApiKeyAsync(keys[0].Id, TestData.Epoch, Ct));
            await Store.InsertApiKeyAsync(TestData.ApiKey(tenant, ["read"]), 5, Ct);
            await Assert.ThrowsAsync<QuotaExceededException>(() => Store.InsertApiKeyAsync(TestData.ApiKey(tenant, ["read"]), 5, Ct));
        }
    }

    // ---- Quota ----

    [Fact]
    public async Task Quota_DatasetsAndBytesCounted_ThePastEitherBoundRefused_NothingOfItStored_OtherTenantsUntouched()
    {
        var (_, probe) = TestData.Dense(100, 3, labels: true, texts: true);
        var info = TestData.Dense(100, 3, labels: true, texts: true).Info;
        var bytes = 100L * ((3 * 8) + 8) + probe.Labels!.Sum(l => Encoding.UTF8.GetByteCount(l)) + probe.Texts!.Sum(t => Encoding.UTF8.GetByteCount(t));
        var store = await OpenInitializedAsync(Location, new StorageQuota(MaxDatasets: 3, MaxBytes: (2 * bytes) + (bytes / 2)));
        var tenant = $"quota-{Guid.NewGuid():N}";
        var other = $"quota-{Guid.NewGuid():N}";

        var first = await store.CreateDatasetAsync(info with { Id = Guid.NewGuid(), Tenant = tenant }, probe, Ct);
        Assert.Equal(bytes, first.Bytes);
        Assert.Equal(bytes, (await store.GetDatasetAsync(first.Id, Ct))!.Bytes);
        await store.CreateDatasetAsync(info with { Id = Guid.NewGuid(), Tenant = tenant }, probe, Ct);
        Assert.Equal(new StorageUsage(2, 2 * bytes), await store.GetUsageAsync(tenant, Ct));

        // A third of the same size passes the count but not the bytes: refused, with the numbers, and gone.
        var refusedId = Guid.NewGuid();
        var refused = await Assert.ThrowsAsync<QuotaExceededException>(() => store.CreateDatasetAsync(info with { Id = refusedId, Tenant = tenant }, probe, Ct));
        Assert.Contains($"{3 * bytes:N0}", refused.Message, StringComparison.Ordinal);
        Assert.Contains("Salsa:Quota:MaxBytes", refused.Message, StringComparison.Ordinal);
        Assert.Null(await store.GetDatasetAsync(refusedId, Ct));
        Assert.Null(await store.ReadDatasetAsync(refusedId, Ct));
        Assert.Equal(new StorageUsage(2, 2 * bytes), await store.GetUsageAsync(tenant, Ct));

        // A small one fits the bytes; the next is one dataset too many, even empty.
        var small = TestData.Dense(1, 3);
        await store.CreateDatasetAsync(small.Info with { Tenant = tenant }, small.Content, Ct);
        var empty = new DatasetInfo { Id = Guid.NewGuid(), Name = "empty", Kind = DatasetKind.Dense, Count = 0, Dimension = 3, Created = TestData.Epoch, Tenant = tenant };
        var tooMany = await Assert.ThrowsAsync<QuotaExceededException>(() => store.CreateDatasetAsync(empty, new DatasetContent { Values = [], Weights = [] }, Ct));
        Assert.Contains("Salsa:Quota:MaxDatasets = 3", tooMany.Message, StringComparison.Ordinal);
        Assert.Null(await store.GetDatasetAsync(empty.Id, Ct));

        // Another tenant has its own room; a delete makes room again.
        await store.CreateDatasetAsync(info with { Id = Guid.NewGuid(), Tenant = other }, probe, Ct);
        Assert.True(await store.DeleteDatasetAsync(first.Id, Ct));
        await store.CreateDatasetAsync(info with { Id = Guid.NewGuid(), Tenant = tenant }, probe, Ct);
        Assert.Equal(3, (await store.GetUsageAsync(tenant, Ct)).Datasets);
    }

    [Fact]
    public async Task Quota_ImportsRacing_NeverPassItTogether()
    {
        var store = await OpenInitializedAsync(Location, new StorageQuota(MaxDatasets: 4, MaxBytes: long.MaxValue));
        var (info, content) = TestData.Dense(50, 2);
        for (var trial = 0; trial < 10; trial++)
        {
            var tenant = $"race-{Guid.NewGuid():N}";
            using var start = new Barrier(12);
            var outcomes = await Task.WhenAll(Enumerable.Range(0, 12).Select(_ => Task.Run(async () =>
            {
                start.SignalAndWait(Ct);
                try
                {
                    await store.CreateDatasetAsync(info with { Id = Guid.NewGuid(), Tenant = tenant }, content, Ct);
                    return true;
                }
                catch (QuotaExceededException)
                {
                    return false;
                }
            }, Ct)));

            Assert.Equal(4, outcomes.Count(stored => stored));
            Assert.Equal(new StorageUsage(4, 4 * 50L * (16 + 8)), await store.GetUsageAsync(tenant, Ct));
            Assert.Equal(4, (await store.ListDatasetsAsync(tenant, 100, Ct)).Count);
        }
    }

    private static DateTimeOffset StoreTimeOf(DateTimeOffset value) =>
        new(value.UtcTicks - (value.UtcTicks % 10), TimeSpan.Zero);

    // ---- Cancellation and arguments ----

    [Fact]
    public async Task EveryMethod_CancelledToken_ThrowsOperationCanceled()
    {
        using var cancellation = new CancellationTokenSource();
        await cancellation.CancelAsync();
        var token = cancellation.Token;
        var (info, content) = TestData.Dense(10, 2);
        var job = TestData.Job(TestData.UniqueService("cancel"));
        var calls = new Func<Task>[]
        {
            () => Store.InitializeAsync(token),
            () => Store.CreateDatasetAsync(info, content, token),
            () => Store.GetDatasetAsync(info.Id, token),
            () => Store.ReadDatasetAsync(info.Id, token),
            () => Store.ListDatasetsAsync(null, 10, token),
            () => Store.DeleteDatasetAsync(info.Id, token),
            () => Store.InsertJobAsync(job, token),
            () => Store.UpdateJobAsync(job, token),
            () => Store.GetJobAsync(job.Id, token),
            () => Store.ListJobsAsync(null, null, 10, token),
            () => Store.MarkInterruptedAsync(job.Service, "x", token),
            () => Store.PutArtifactAsync(job.Id, new Artifact("a", "b", [1]), token),
            () => Store.GetArtifactAsync(job.Id, "a", token),
            () => Store.ListArtifactsAsync(job.Id, token),
        };

        foreach (var call in calls)
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(call);
        }

        Assert.Null(await Store.GetDatasetAsync(info.Id, Ct));
        Assert.Null(await Store.GetJobAsync(job.Id, Ct));
        Assert.Empty(await Store.ListArtifactsAsync(job.Id, Ct));
    }

    [Fact]
    public async Task ListMethods_NegativeLimit_ThrowArgumentOutOfRange()
    {
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Store.ListDatasetsAsync(null, -1, Ct));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Store.ListJobsAsync(null, null, -1, Ct));
    }
}
