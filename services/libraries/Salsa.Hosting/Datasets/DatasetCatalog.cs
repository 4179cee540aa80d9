using System.Diagnostics;
using Google.Protobuf.WellKnownTypes;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Salsa.Store;
using Proto = Salsa.Contracts.Datasets;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// A dataset as REST returns it; a fingerprint dataset (and the compounds it belongs to) says which
/// RDKit release made its fingerprints and how (<see cref="DatasetMetadataKeys"/>).
/// </summary>
public sealed record DatasetView(
    Guid DatasetId,
    string Name,
    string Kind,
    int Count,
    int Dimension,
    int Bits,
    string? FingerprintType,
    double TotalWeight,
    DateTimeOffset Created,
    string Source,
    IReadOnlyDictionary<string, string> Metadata,
    long Bytes,
    string? RdkitVersion = null,
    string? FingerprintOptions = null,
    string? Sha256 = null);

/// <summary>What a tenant stores and what its quota allows (null: no bound).</summary>
public sealed record DatasetUsageView(int Datasets, long Bytes, int? MaxDatasets, long? MaxBytes);

/// <summary>
/// Dataset lookups shared by every service (loading them as algorithm inputs: Salsa.Hosting.Clustering).
/// Every lookup is the calling tenant's (<see cref="CallerTenant"/>): another tenant's dataset is
/// "not found", exactly like one that does not exist, so ids reveal nothing across tenants.
/// </summary>
public sealed class DatasetCatalog(IDataStore store, IOptions<ServiceLimits> limits)
{
    public IDataStore Store { get; } = store;

    public ServiceLimits Limits { get; } = limits.Value;

    /// <summary>The calling tenant's dataset, or null.</summary>
    public async Task<DatasetInfo?> GetAsync(Guid id, CancellationToken cancellationToken = default) =>
        await Store.GetDatasetAsync(id, cancellationToken).ConfigureAwait(false) is { } info && info.Tenant == CallerTenant.Current ? info : null;

    public async Task<DatasetInfo> GetRequiredAsync(Guid id, CancellationToken cancellationToken = default) =>
        await GetAsync(id, cancellationToken).ConfigureAwait(false) ?? throw new NotFoundException($"No dataset {id}.");

    /// <summary>The calling tenant's datasets, newest first.</summary>
    public Task<IReadOnlyList<DatasetInfo>> ListAsync(int limit, CancellationToken cancellationToken = default) =>
        Store.ListDatasetsAsync(CallerTenant.Current, Math.Clamp(limit, 1, 1000), cancellationToken);

    /// <summary>The owner the gateway's runs are stored under (a dataset in use by one is named as a run).</summary>
    public const string RunsOwner = "gateway.runs";

    /// <summary>
    /// Deletes a dataset no queued or running job or run uses; one in use is refused
    /// (<see cref="ConflictException"/>, naming the user) and kept, so no work in flight loses its data.
    /// Each tenant's import of the same content is its own dataset, so a delete removes only the caller's.
    /// </summary>
    public async Task<DatasetInfo> DeleteAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var info = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        if (await Store.FindDatasetUserAsync(id, cancellationToken).ConfigureAwait(false) is { } user)
        {
            var what = user.Service == RunsOwner ? $"run {user.Id} ({user.Kind})" : $"{user.Service} job {user.Id}";
            throw new ConflictException($"Dataset {id} is in use by {what}, which is {JobViews.StateName(user.State)}: delete it once that has ended, or cancel it.");
        }

        return await Store.DeleteDatasetAsync(id, cancellationToken).ConfigureAwait(false) ? info : throw new NotFoundException($"No dataset {id}.");
    }

    /// <summary>The longest name a rename gives (an upload's name is its file's, bounded by its request).</summary>
    public const int MaxNameLength = 200;

    /// <summary>
    /// Gives the calling tenant's dataset a new name: trimmed, 1–200 characters, no control
    /// characters (refused with <see cref="ArgumentException"/>, nothing changed). Only the name
    /// changes: its id, content and digest stay, so runs that used it still name it.
    /// </summary>
    public async Task<DatasetInfo> RenameAsync(Guid id, string? name, CancellationToken cancellationToken = default)
    {
        var trimmed = name?.Trim() ?? "";
        if (trimmed.Length == 0 || trimmed.Length > MaxNameLength || trimmed.Any(char.IsControl))
        {
            throw new ArgumentException($"A dataset's name is 1 to {MaxNameLength} characters without control characters; this one has {trimmed.Length}{(trimmed.Any(char.IsControl) ? " and a control character" : "")}.");
        }

        var info = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        return await Store.RenameDatasetAsync(id, trimmed, cancellationToken).ConfigureAwait(false)
            ? info with { Name = trimmed }
            : throw new NotFoundException($"No dataset {id}.");
    }

    public async Task<(DatasetInfo Info, DatasetContent Content)> ReadRequiredAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var info = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        var content = await Store.ReadDatasetAsync(id, cancellationToken).ConfigureAwait(false) ?? throw new NotFoundException($"No dataset {id}.");
        return (info, content);
    }

    /// <summary>What the calling tenant stores, and its quota.</summary>
    public async Task<DatasetUsageView> UsageAsync(CancellationToken cancellationToken = default)
    {
        var usage = await Store.GetUsageAsync(CallerTenant.Current, cancellationToken).ConfigureAwait(false);
        return new(usage.Datasets, usage.Bytes, Store.Quota?.MaxDatasets, Store.Quota?.MaxBytes);
    }

    /// <summary>
    /// Refuses (<see cref="QuotaExceededException"/>) before any work when the calling tenant's
    /// quota has no room left for one more dataset; the store checks again, exactly, as it stores.
    /// </summary>
    public async Task RequireRoomAsync(CancellationToken cancellationToken = default)
    {
        if (Store.Quota is { } quota)
        {
            quota.Check(CallerTenant.Current, await Store.GetUsageAsync(CallerTenant.Current, cancellationToken).ConfigureAwait(false), adding: 0);
        }
    }

    public async Task<DatasetInfo> CreateAsync(DatasetBuilder builder, string source, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var (info, content) = builder.Build(source);
        return await Store.CreateDatasetAsync(info with { Tenant = CallerTenant.Current }, content, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The id the calling tenant's dataset of this content has: a content id (<see cref="DatasetIds"/>)
    /// made the tenant's own, so two tenants importing the same file get two datasets and neither can
    /// reach or delete the other's. The tenant <c>local</c> keeps the content id itself.
    /// </summary>
    public static Guid TenantId(Guid contentId) =>
        CallerTenant.Current is var tenant && tenant == Salsa.Store.Tenants.Local ? contentId : DatasetIds.For("tenant", tenant, contentId.ToString());

    /// <summary>The calling tenant's dataset of this content (<see cref="TenantId"/>), or null.</summary>
    public Task<DatasetInfo?> FindAsync(Guid contentId, CancellationToken cancellationToken = default) =>
        GetAsync(TenantId(contentId), cancellationToken);

    /// <summary>
    /// The calling tenant's dataset of this content (<see cref="TenantId"/>), built and stored by
    /// <paramref name="build"/> only when it is not there yet; two callers racing store it once.
    /// </summary>
    public async Task<DatasetInfo> GetOrCreateAsync(Guid contentId, Func<(DatasetInfo Info, DatasetContent Content)> build, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(build);
        var id = TenantId(contentId);
        if (await GetAsync(id, cancellationToken).ConfigureAwait(false) is { } existing)
        {
            return existing;
        }

        await RequireRoomAsync(cancellationToken).ConfigureAwait(false);
        var (info, content) = build();
        var stored = info with { Id = id, Tenant = CallerTenant.Current };
        var waited = Stopwatch.StartNew();
        for (var pause = TimeSpan.FromMilliseconds(10); ; pause = TimeSpan.FromMilliseconds(Math.Min(pause.TotalMilliseconds * 2, 250)))
        {
            try
            {
                return await Store.CreateDatasetAsync(stored, content, cancellationToken).ConfigureAwait(false);
            }
            catch (InvalidOperationException)
            {
                // Another caller holds the id (the store refuses a duplicate). Its dataset is
                // visible once its import has committed — until then an import is seen by no
                // one — and if that import fails the id is free again: wait for either.
                if (await GetAsync(id, cancellationToken).ConfigureAwait(false) is { } theirs)
                {
                    return theirs;
                }

                if (waited.Elapsed > OtherImportWait)
                {
                    throw new ConflictException($"Another import of the same content (dataset {id}) has not finished after {OtherImportWait.TotalSeconds:F0} s; try again later.");
                }
            }

            await Task.Delay(pause, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>How long a caller storing content waits for another caller's import of the same content.</summary>
    private static readonly TimeSpan OtherImportWait = TimeSpan.FromMinutes(2);

    /// <summary>A dataset an algorithm can take: dense or binary vectors.</summary>
    public static void RequireVectors(DatasetInfo info)
    {
        ArgumentNullException.ThrowIfNull(info);
        if (info.Kind is not (DatasetKind.Dense or DatasetKind.Binary))
        {
            throw new ArgumentException($"Dataset {info.Id} is {KindName(info.Kind)}; clustering needs a dense or binary dataset.");
        }
    }

    public static string KindName(DatasetKind kind) => kind.ToString().ToLowerInvariant();

    public static DatasetKind ParseKind(string? kind) => kind?.ToLowerInvariant() switch
    {
        "dense" => DatasetKind.Dense,
        "binary" => DatasetKind.Binary,
        _ => throw new ArgumentException($"Dataset kind '{kind}' is not 'dense' or 'binary'."),
    };

    public static DatasetView ToView(DatasetInfo info)
    {
        ArgumentNullException.ThrowIfNull(info);
        return new(
            info.Id, info.Name, KindName(info.Kind), info.Count, info.Dimension, info.Bits, info.FingerprintType, info.TotalWeight, info.Created, info.Source, info.Metadata, info.Bytes,
            info.Metadata.GetValueOrDefault(DatasetMetadataKeys.RdkitVersion), info.Metadata.GetValueOrDefault(DatasetMetadataKeys.FingerprintOptions), info.Sha256);
    }

    public static Proto.DatasetInfo ToProto(DatasetInfo info)
    {
        var proto = new Proto.DatasetInfo
        {
            DatasetId = info.Id.ToString(),
            Name = info.Name,
            Kind = (Proto.DatasetKind)(int)info.Kind,
            Count = info.Count,
            Dimension = info.Dimension,
            Bits = info.Bits,
            FingerprintType = info.FingerprintType ?? "",
            TotalWeight = info.TotalWeight,
            Created = Timestamp.FromDateTimeOffset(info.Created),
            Source = info.Source,
            RdkitVersion = info.Metadata.GetValueOrDefault(DatasetMetadataKeys.RdkitVersion, ""),
            FingerprintOptions = info.Metadata.GetValueOrDefault(DatasetMetadataKeys.FingerprintOptions, ""),
            Sha256 = info.Sha256 ?? "",
            Bytes = info.Bytes,
        };
        foreach (var (key, value) in info.Metadata)
        {
            proto.Metadata[key] = value;
        }

        return proto;
    }

    public static Guid ParseId(string? id) => Jobs.JobViews.ParseId(id, "dataset id");
}
