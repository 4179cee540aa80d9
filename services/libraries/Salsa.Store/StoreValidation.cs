using System.Globalization;

namespace Salsa.Store;

/// <summary>
/// Checks what callers hand the store before anything is written, so a bad request fails with an
/// <see cref="ArgumentException"/> that says what is wrong, never halfway through an import. Both
/// stores share it, so they accept and reject exactly the same input.
/// </summary>
internal static class StoreValidation
{
    /// <summary>
    /// Validates and returns the info as the store keeps it: <see cref="DatasetInfo.Created"/> in
    /// UTC truncated to the microsecond, <see cref="DatasetInfo.TotalWeight"/> the sum of the
    /// weights (computed here, in point order, so the stored value cannot disagree with the points),
    /// and a private copy of the metadata.
    /// </summary>
    public static DatasetInfo ValidateDataset(DatasetInfo info, DatasetContent content)
    {
        ArgumentNullException.ThrowIfNull(info);
        ArgumentNullException.ThrowIfNull(content);

        var what = string.Create(CultureInfo.InvariantCulture, $"Dataset '{info.Name}' ({info.Kind}, Count {info.Count})");
        if (info.Id == Guid.Empty)
        {
            throw new ArgumentException($"{what}: Id must not be Guid.Empty.", nameof(info));
        }

        Require(info.Name is not null, "Name must not be null.");
        Require(Tenants.IsValid(info.Tenant), $"Tenant '{info.Tenant}' is not a tenant name.");
        Require(info.Source is not null, "Source must not be null.");
        Require(info.Metadata is not null, "Metadata must not be null.");
        Require(Enum.IsDefined(info.Kind), $"Kind {(int)info.Kind} is not a DatasetKind.");
        Require(info.Count >= 0, "Count must not be negative.");
        Require(info.Dimension >= 0 && info.Bits >= 0, "Dimension and Bits must not be negative.");

        switch (info.Kind)
        {
            case DatasetKind.Dense or DatasetKind.Census:
                Require(info.Dimension >= 1, "Dimension must be at least 1.");
                Require(info.Kind != DatasetKind.Census || info.Dimension == 2, "a Census dataset has Dimension 2 (latitude, longitude).");
                Require(info.Bits == 0, "Bits must be 0 (it describes Binary datasets).");
                RequireLength(content.Values, "Values", (long)info.Count * info.Dimension, "Count·Dimension");
                Require(content.Words is null, "Words must be null (it holds Binary datasets' bits).");
                break;
            case DatasetKind.Binary:
                Require(info.Bits >= 1, "Bits must be at least 1.");
                Require(info.Dimension == 0, "Dimension must be 0 (it describes Dense and Census datasets).");
                RequireLength(content.Words, "Words", (long)info.Count * WordsPerPoint(info.Bits), "Count·((Bits+63)/64)");
                Require(content.Values is null, "Values must be null (it holds Dense and Census datasets' coordinates).");
                break;
            case DatasetKind.Compounds:
                Require(info.Dimension == 0 && info.Bits == 0, "Dimension and Bits must be 0 (fingerprints live in derived Binary datasets).");
                Require(content.Values is null && content.Words is null, "Values and Words must be null (fingerprints live in derived Binary datasets).");
                break;
        }

        RequireLength(content.Weights, "Weights", info.Count, "Count");
        var total = 0.0;
        for (var i = 0; i < content.Weights.Length; i++)
        {
            // Non-finite weights would make TotalWeight meaningless (and SQLite stores NaN as NULL).
            Require(double.IsFinite(content.Weights[i]), $"Weights[{i}] is {content.Weights[i]}; weights must be finite.");
            total += content.Weights[i];
        }

        RequireStrings(content.Labels, "Labels");
        RequireStrings(content.Texts, "Texts");

        return info with
        {
            Created = StoreTime.Normalize(info.Created),
            TotalWeight = total,
            Metadata = new Dictionary<string, string>(info.Metadata!, StringComparer.Ordinal),
        };

        void Require(bool condition, string message)
        {
            if (!condition)
            {
                throw new ArgumentException($"{what}: {message}", nameof(content));
            }
        }

        void RequireLength<T>(T[]? array, string name, long expected, string rule)
        {
            Require(array is not null, $"{name} must not be null.");
            Require(array!.LongLength == expected, string.Create(CultureInfo.InvariantCulture,
                $"{name} has {array.LongLength} entries; expected {rule} = {expected}."));
        }

        void RequireStrings(string[]? array, string name)
        {
            if (array is null)
            {
                return;
            }

            Require(array.Length == info.Count, string.Create(CultureInfo.InvariantCulture,
                $"{name} has {array.Length} entries; expected null or Count = {info.Count}."));
            var missing = Array.IndexOf(array, null);
            Require(missing < 0, $"{name}[{missing}] is null; give every point a value or pass null for the whole array.");
        }
    }

    public static int WordsPerPoint(int bits) => (bits + 63) / 64;

    /// <summary>Bytes of one point's vector (coordinates or bit words), 0 when the kind has none.</summary>
    public static int VectorBytes(DatasetKind kind, int dimension, int bits) => kind switch
    {
        DatasetKind.Dense or DatasetKind.Census => dimension * sizeof(double),
        DatasetKind.Binary => WordsPerPoint(bits) * sizeof(ulong),
        _ => 0,
    };

    public static void ValidateJob(JobRecord job)
    {
        ArgumentNullException.ThrowIfNull(job);
        if (job.Service is null || job.Kind is null || job.ParametersJson is null)
        {
            throw new ArgumentException($"Job {job.Id}: Service, Kind and ParametersJson must not be null.", nameof(job));
        }

        if (!Tenants.IsValid(job.Tenant))
        {
            throw new ArgumentException($"Job {job.Id}: Tenant '{job.Tenant}' is not a tenant name.", nameof(job));
        }

        if (!Enum.IsDefined(job.State))
        {
            throw new ArgumentException($"Job {job.Id}: State {(int)job.State} is not a JobState.", nameof(job));
        }
    }

    public static void ValidateApiKey(ApiKeyRecord key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Id is not { Length: > 0 } || key.Name is null || key.Scopes is null || key.SecretHash is not { Length: 32 })
        {
            throw new ArgumentException("An API key needs an Id, a Name, Scopes and a 32-byte SecretHash.", nameof(key));
        }

        Tenants.Require(key.Tenant, nameof(key));
        if (key.Scopes.Any(s => s is null || s.Contains(' ', StringComparison.Ordinal)))
        {
            throw new ArgumentException("An API key's scopes are single words.", nameof(key));
        }
    }

    public static void ValidateArtifact(Artifact artifact)
    {
        ArgumentNullException.ThrowIfNull(artifact);
        if (artifact.Name is null || artifact.ContentType is null || artifact.Data is null)
        {
            throw new ArgumentException("An artifact's Name, ContentType and Data must not be null.", nameof(artifact));
        }
    }
}
