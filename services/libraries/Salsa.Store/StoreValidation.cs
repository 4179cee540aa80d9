using System.Globalization;
using System.Text;

namespace Salsa.Store;

/// <summary>
/// Checks what callers hand the store before anything is written, so a bad request fails with an
/// <see cref="ArgumentException"/> that says what is wrong, never halfway through an import. Both
/// stores share it, so they accept and reject exactly the same input.
/// </summary>
internal static class StoreValidation
{
    /// <summary>Refuses a row range that is not inside a dataset of <paramref name="rows"/> rows.</summary>
    public static void CheckRange(int start, int count, int rows)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(start);
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if ((long)start + count > rows)
        {
            throw new ArgumentOutOfRangeException(nameof(count), string.Create(CultureInfo.InvariantCulture,
                $"Rows {start}..{(long)start + count - 1} are past the dataset's {rows} rows."));
        }
    }

    /// <summary>
    /// Validates and returns the info as the store keeps it: <see cref="DatasetInfo.Created"/> in
    /// UTC truncated to the microsecond, <see cref="DatasetInfo.TotalWeight"/> the sum of the
    /// weights (computed here, in point order, so the stored value cannot disagree with the points),
    /// and a private copy of the metadata.
    /// </summary>
    public static DatasetInfo ValidateDataset(DatasetInfo info, DatasetContent content)
    {
        var stored = ValidateInfo(info);
        ArgumentNullException.ThrowIfNull(content);
        Require(stored, content.Weights is not null, "Weights must not be null.");
        RequireRows(stored, content.Weights!.Length);
        var total = 0.0;
        ValidatePart(stored, content, 0, ref total);
        return stored with { TotalWeight = total };
    }

    /// <summary>
    /// Validates a dataset's description alone (what <see cref="ValidateDataset"/> checks before the
    /// points) and returns it as the store keeps it, <see cref="DatasetInfo.TotalWeight"/> 0 until
    /// the points are in.
    /// </summary>
    public static DatasetInfo ValidateInfo(DatasetInfo info)
    {
        ArgumentNullException.ThrowIfNull(info);
        if (info.Id == Guid.Empty)
        {
            throw new ArgumentException($"{Describe(info)}: Id must not be Guid.Empty.", nameof(info));
        }

        Require(info, info.Name is not null, "Name must not be null.");
        Require(info, Tenants.IsValid(info.Tenant), $"Tenant '{info.Tenant}' is not a tenant name.");
        Require(info, info.Source is not null, "Source must not be null.");
        Require(info, info.Metadata is not null, "Metadata must not be null.");
        Require(info, Enum.IsDefined(info.Kind), $"Kind {(int)info.Kind} is not a DatasetKind.");
        Require(info, info.Count >= 0, "Count must not be negative.");
        Require(info, info.Dimension >= 0 && info.Bits >= 0, "Dimension and Bits must not be negative.");
        switch (info.Kind)
        {
            case DatasetKind.Dense or DatasetKind.Census:
                Require(info, info.Dimension >= 1, "Dimension must be at least 1.");
                Require(info, info.Kind != DatasetKind.Census || info.Dimension == 2, "a Census dataset has Dimension 2 (latitude, longitude).");
                Require(info, info.Bits == 0, "Bits must be 0 (it describes Binary datasets).");
                break;
            case DatasetKind.Binary:
                Require(info, info.Bits >= 1, "Bits must be at least 1.");
                Require(info, info.Dimension == 0, "Dimension must be 0 (it describes Dense and Census datasets).");
                break;
            case DatasetKind.Compounds:
                Require(info, info.Dimension == 0 && info.Bits == 0, "Dimension and Bits must be 0 (fingerprints live in derived Binary datasets).");
                break;
        }

        return info with
        {
            Created = StoreTime.Normalize(info.Created),
            TotalWeight = 0,
            Metadata = new Dictionary<string, string>(info.Metadata!, StringComparer.Ordinal),
        };
    }

    /// <summary>
    /// Validates the next <paramref name="part"/> of a dataset's points, whose first row is row
    /// <paramref name="first"/>: arrays as <paramref name="info"/>'s kind needs them for the part's
    /// rows (its weights' length), finite weights — added to <paramref name="total"/> in point
    /// order — and labels and texts complete when present. Returns the part's rows.
    /// </summary>
    public static int ValidatePart(DatasetInfo info, DatasetContent part, long first, ref double total)
    {
        ArgumentNullException.ThrowIfNull(part);
        Require(info, part.Weights is not null, "Weights must not be null.");
        var rows = part.Weights!.Length;
        Require(info, first + rows <= int.MaxValue, string.Create(CultureInfo.InvariantCulture, $"more than {int.MaxValue} points."));
        switch (info.Kind)
        {
            case DatasetKind.Dense or DatasetKind.Census:
                RequireLength(info, part.Values, "Values", (long)rows * info.Dimension, "Count·Dimension");
                Require(info, part.Words is null, "Words must be null (it holds Binary datasets' bits).");
                break;
            case DatasetKind.Binary:
                RequireLength(info, part.Words, "Words", (long)rows * WordsPerPoint(info.Bits), "Count·((Bits+63)/64)");
                Require(info, part.Values is null, "Values must be null (it holds Dense and Census datasets' coordinates).");
                break;
            case DatasetKind.Compounds:
                Require(info, part.Values is null && part.Words is null, "Values and Words must be null (fingerprints live in derived Binary datasets).");
                break;
        }

        for (var i = 0; i < rows; i++)
        {
            // Non-finite weights would make TotalWeight meaningless (and SQLite stores NaN as NULL).
            Require(info, double.IsFinite(part.Weights[i]), string.Create(CultureInfo.InvariantCulture, $"Weights[{first + i}] is {part.Weights[i]}; weights must be finite."));
            total += part.Weights[i];
        }

        RequireStrings(info, part.Labels, "Labels", rows, first);
        RequireStrings(info, part.Texts, "Texts", rows, first);
        return rows;
    }

    /// <summary>Refuses an import whose parts held another number of rows than its info's Count.</summary>
    public static void RequireRows(DatasetInfo info, long rows) =>
        Require(info, rows == info.Count, string.Create(CultureInfo.InvariantCulture, $"Weights has {rows} entries; expected Count = {info.Count}."));

    /// <summary>Refuses a part whose labels or texts are present where the first part's were not, or the reverse.</summary>
    public static void RequireSameColumns(DatasetInfo info, DatasetContent first, DatasetContent part) =>
        Require(info, (first.Labels is null) == (part.Labels is null) && (first.Texts is null) == (part.Texts is null),
            "every part has Labels (and Texts) or none does.");

    private static string Describe(DatasetInfo info) =>
        string.Create(CultureInfo.InvariantCulture, $"Dataset '{info.Name}' ({info.Kind}, Count {info.Count})");

    private static void Require(DatasetInfo info, bool condition, string message)
    {
        if (!condition)
        {
            throw new ArgumentException($"{Describe(info)}: {message}");
        }
    }

    private static void RequireLength<T>(DatasetInfo info, T[]? array, string name, long expected, string rule)
    {
        Require(info, array is not null, $"{name} must not be null.");
        Require(info, array!.LongLength == expected, string.Create(CultureInfo.InvariantCulture,
            $"{name} has {array.LongLength} entries; expected {rule} = {expected}."));
    }

    private static void RequireStrings(DatasetInfo info, string[]? array, string name, int rows, long first)
    {
        if (array is null)
        {
            return;
        }

        Require(info, array.Length == rows, string.Create(CultureInfo.InvariantCulture,
            $"{name} has {array.Length} entries; expected null or Count = {rows}."));
        var missing = Array.IndexOf(array, null);
        Require(info, missing < 0, string.Create(CultureInfo.InvariantCulture,
            $"{name}[{first + missing}] is null; give every point a value or pass null for the whole array."));
    }

    /// <summary>An import's parts checked in turn, with the rows, the weight and the digest they add up to.</summary>
    public sealed class ImportCheck(DatasetInfo info) : IDisposable
    {
        private readonly DatasetDigest _digest = new(info);
        private DatasetContent? _first;
        private double _total;

        /// <summary>Rows checked so far.</summary>
        public long Rows { get; private set; }

        /// <summary>The sum of the weights so far, in point order.</summary>
        public double TotalWeight => _total;

        /// <summary>Bytes of the rows checked so far, as <see cref="DatasetInfo.Bytes"/> counts them.</summary>
        public long Bytes { get; private set; }

        /// <summary>Checks the next part (its arrays, its columns against the first part's, the promised count) and returns the row of its first point.</summary>
        public int Next(DatasetContent part)
        {
            var first = Rows;
            var rows = ValidatePart(info, part, first, ref _total);
            RequireSameColumns(info, _first ??= part, part);
            if (first + rows > info.Count)
            {
                RequireRows(info, first + rows);
            }

            Rows = first + rows;
            Bytes += ContentBytes(info, part);
            _digest.Add(part);
            return (int)first;
        }

        /// <summary>The content's SHA-256 (<see cref="DatasetDigest"/>), once <see cref="Finish"/> has accepted every row.</summary>
        public string? Sha256 { get; private set; }

        /// <summary>Refuses an import that ended short of its promised count; otherwise the digest is known.</summary>
        public void Finish()
        {
            RequireRows(info, Rows);
            Sha256 = _digest.Finish();
        }

        public void Dispose() => _digest.Dispose();
    }

    /// <summary>Bytes of a part's rows: vectors, 8 per weight, labels and texts in UTF-8 (what <see cref="DatasetInfo.Bytes"/> sums).</summary>
    public static long ContentBytes(DatasetInfo info, DatasetContent part)
    {
        ArgumentNullException.ThrowIfNull(info);
        ArgumentNullException.ThrowIfNull(part);
        long bytes = (long)part.Weights.Length * (sizeof(double) + VectorBytes(info.Kind, info.Dimension, info.Bits));
        foreach (var strings in (ReadOnlySpan<string[]?>)[part.Labels, part.Texts])
        {
            foreach (var s in strings ?? [])
            {
                bytes += Encoding.UTF8.GetByteCount(s ?? "");
            }
        }

        return bytes;
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

    /// <summary>Refuses one more key for a tenant that has <paramref name="live"/> unrevoked keys, <paramref name="max"/> at most.</summary>
    public static void RequireKeyRoom(string tenant, int live, int max)
    {
        if (live >= max)
        {
            throw new QuotaExceededException(string.Create(CultureInfo.InvariantCulture,
                $"Tenant '{tenant}' has {live:N0} keys that are not revoked, the most it may have (Salsa:Auth:MaxKeysPerTenant = {max:N0}); revoke one it no longer uses first."));
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
