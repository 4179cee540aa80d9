using System.ComponentModel.DataAnnotations;
using System.Globalization;

namespace Salsa.Store;

/// <summary>What one tenant may keep in the store: datasets and their bytes (<c>Salsa:Quota</c>).</summary>
/// <param name="MaxDatasets">Datasets one tenant may hold at once.</param>
/// <param name="MaxBytes">Bytes of points one tenant's datasets may hold together (<see cref="DatasetInfo.Bytes"/>).</param>
public sealed record StorageQuota(
    [property: Range(1, int.MaxValue)] int MaxDatasets = StorageQuota.DefaultMaxDatasets,
    [property: Range(1, long.MaxValue)] long MaxBytes = StorageQuota.DefaultMaxBytes)
{
    public const string Section = "Salsa:Quota";

    public const int DefaultMaxDatasets = 1000;

    public const long DefaultMaxBytes = 4L << 30;

    /// <summary>Refuses a dataset that would take <paramref name="usage"/> past the quota, naming the numbers.</summary>
    public void Check(string tenant, StorageUsage usage, long adding)
    {
        ArgumentNullException.ThrowIfNull(usage);
        if (usage.Datasets + 1 > MaxDatasets)
        {
            throw new QuotaExceededException(string.Create(CultureInfo.InvariantCulture,
                $"Tenant '{tenant}' holds {usage.Datasets:N0} datasets, the most its quota allows ({Section}:MaxDatasets = {MaxDatasets:N0}); delete datasets it no longer needs to make room. Nothing was stored."));
        }

        if (usage.Bytes + adding > MaxBytes)
        {
            throw new QuotaExceededException(string.Create(CultureInfo.InvariantCulture,
                $"Tenant '{tenant}' stores {usage.Bytes:N0} bytes; with this dataset's {adding:N0} it would store {usage.Bytes + adding:N0}, over its quota ({Section}:MaxBytes = {MaxBytes:N0}); delete datasets it no longer needs to make room. Nothing was stored."));
        }
    }
}

/// <summary>What one tenant keeps in the store now: its datasets (finished imports) and their bytes.</summary>
public sealed record StorageUsage(int Datasets, long Bytes);

/// <summary>A dataset the tenant's <see cref="StorageQuota"/> has no room for; nothing of it was stored.</summary>
public sealed class QuotaExceededException(string message) : Exception(message);
