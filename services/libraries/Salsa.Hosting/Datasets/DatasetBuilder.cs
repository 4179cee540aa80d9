using Salsa.Store;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// Collects an upload's chunks into a dataset, checking as it goes: the kind and shape from the
/// header, finite coordinates, whole points per chunk, weights and labels for all points or none,
/// and the service's limits (so an oversize upload is refused before it is held in memory).
/// </summary>
public sealed class DatasetBuilder
{
    private readonly List<double> _values = [];
    private readonly List<ulong> _words = [];
    private readonly List<double> _weights = [];
    private readonly List<string> _labels = [];
    private readonly ServiceLimits _limits;
    private bool? _hasWeights;
    private bool? _hasLabels;

    public DatasetBuilder(string name, DatasetKind kind, int dimension, int bits, string? fingerprintType, IReadOnlyDictionary<string, string>? metadata, ServiceLimits limits)
    {
        _limits = limits;
        if (string.IsNullOrWhiteSpace(name))
        {
            throw new ArgumentException("A dataset needs a name.");
        }

        switch (kind)
        {
            case DatasetKind.Dense when dimension < 1:
                throw new ArgumentException($"A dense dataset needs a dimension of at least 1; it is {dimension}.");
            case DatasetKind.Binary when bits < 1:
                throw new ArgumentException($"A binary dataset needs at least 1 bit per point; it is {bits}.");
            case DatasetKind.Dense or DatasetKind.Binary:
                break;
            default:
                throw new ArgumentException($"Uploads are dense or binary datasets, not '{kind}'.");
        }

        if (kind == DatasetKind.Binary && !string.IsNullOrEmpty(fingerprintType) && Salsa.DataFiles.FingerprintType.Find(fingerprintType) is { } known && known.Bits != bits)
        {
            throw new ArgumentException($"Fingerprint type '{known.Name}' has {known.Bits} bits, not {bits}.");
        }

        limits.CheckPoints(0, kind == DatasetKind.Dense ? dimension : bits);
        Name = name;
        Kind = kind;
        Dimension = kind == DatasetKind.Dense ? dimension : 0;
        Bits = kind == DatasetKind.Binary ? bits : 0;
        FingerprintType = string.IsNullOrEmpty(fingerprintType) ? null : fingerprintType;
        Metadata = metadata ?? new Dictionary<string, string>();
    }

    public string Name { get; }

    public DatasetKind Kind { get; }

    public int Dimension { get; }

    public int Bits { get; }

    public string? FingerprintType { get; }

    public IReadOnlyDictionary<string, string> Metadata { get; }

    public int Count { get; private set; }

    private int WordsPerPoint => (Bits + 63) / 64;

    /// <summary>Adds points: dense values (row-major) or binary words; optional weights and labels for each.</summary>
    public void Add(IReadOnlyList<double> values, IReadOnlyList<ulong> words, IReadOnlyList<double> weights, IReadOnlyList<string> labels)
    {
        int points;
        if (Kind == DatasetKind.Dense)
        {
            if (words.Count > 0)
            {
                throw new ArgumentException("A dense dataset takes values, not words.");
            }

            if (values.Count % Dimension != 0)
            {
                throw new ArgumentException($"A chunk of {values.Count} values does not hold whole {Dimension}-dimensional points.");
            }

            points = values.Count / Dimension;
            for (var i = 0; i < values.Count; i++)
            {
                if (!double.IsFinite(values[i]))
                {
                    throw new ArgumentException($"Point {Count + i / Dimension}, coordinate {i % Dimension} is {values[i]}; coordinates must be finite.");
                }
            }
        }
        else
        {
            if (values.Count > 0)
            {
                throw new ArgumentException("A binary dataset takes words, not values.");
            }

            if (words.Count % WordsPerPoint != 0)
            {
                throw new ArgumentException($"A chunk of {words.Count} words does not hold whole {Bits}-bit fingerprints ({WordsPerPoint} words each).");
            }

            points = words.Count / WordsPerPoint;
            var tail = Bits % 64;
            for (var p = 0; tail != 0 && p < points; p++)
            {
                if (words[p * WordsPerPoint + WordsPerPoint - 1] >> tail != 0)
                {
                    throw new ArgumentException($"Fingerprint {Count + p} sets bits beyond bit {Bits - 1}.");
                }
            }
        }

        _hasWeights = Check(weights.Count, points, _hasWeights, "weights");
        _hasLabels = Check(labels.Count, points, _hasLabels, "labels");
        foreach (var w in weights)
        {
            if (!double.IsFinite(w) || w < 0)
            {
                throw new ArgumentException($"A weight is {w}; weights must be finite and non-negative.");
            }
        }

        _limits.CheckPoints(Count + points, Kind == DatasetKind.Dense ? Dimension : Bits);
        _values.AddRange(values);
        _words.AddRange(words);
        _weights.AddRange(weights);
        _labels.AddRange(labels);
        Count += points;
    }

    public (DatasetInfo Info, DatasetContent Content) Build(string source)
    {
        if (Count == 0)
        {
            throw new ArgumentException("The upload holds no points.");
        }

        var weights = _hasWeights == true ? _weights.ToArray() : Enumerable.Repeat(1.0, Count).ToArray();
        var total = weights.Sum();
        if (!(total > 0))
        {
            throw new ArgumentException("The points' total weight is zero.");
        }

        var info = new DatasetInfo
        {
            Id = Guid.NewGuid(),
            Name = Name,
            Kind = Kind,
            Count = Count,
            Dimension = Dimension,
            Bits = Bits,
            FingerprintType = FingerprintType,
            TotalWeight = total,
            Created = DateTimeOffset.UtcNow,
            Source = source,
            Metadata = Metadata,
        };
        var content = new DatasetContent
        {
            Values = Kind == DatasetKind.Dense ? _values.ToArray() : null,
            Words = Kind == DatasetKind.Binary ? _words.ToArray() : null,
            Weights = weights,
            Labels = _hasLabels == true ? _labels.ToArray() : null,
        };
        return (info, content);
    }

    private static bool Check(int given, int points, bool? seen, string what)
    {
        if (points == 0)
        {
            return seen ?? false;
        }

        var has = given > 0;
        if (has && given != points)
        {
            throw new ArgumentException($"A chunk of {points} points has {given} {what}; give one per point or none.");
        }

        if (seen is { } before && before != has)
        {
            throw new ArgumentException($"Some chunks have {what} and some do not; give {what} for every point or none.");
        }

        return has;
    }
}
