using Microsoft.Extensions.Options;
using Salsa.Clustering.Fingerprints;

namespace Salsa.Fingerprints;

/// <summary>A dataset ready to search: its index, the compounds' labels and, when their compounds are stored, their SMILES.</summary>
public sealed record SearchableSet(SimilarityIndex Index, IReadOnlyList<string>? Labels, IReadOnlyList<string>? Smiles = null)
{
    public string LabelOf(int index) => Labels is { } labels ? labels[index] : "";

    public string? SmilesOf(int index) => Smiles?[index];
}

// Design: request threads look up and insert under one lock, held only for dictionary work; the
// build itself runs outside it, once per key (Lazy, execution and publication), and every caller
// of that key awaits the same task with its own cancellation. A build that fails is dropped, so
// the next search tries again. Datasets and finished jobs never change, so an entry never goes
// stale; the least recently used entry makes room.
/// <summary>Search indexes kept between searches: building one reads and compares the whole dataset.</summary>
public sealed class SearchIndexCache(IOptions<FingerprintsOptions> options)
{
    private readonly object _gate = new();
    private readonly Dictionary<(Guid Dataset, Guid? ButinaJob), (Lazy<Task<SearchableSet>> Set, long Used)> _entries = [];
    private long _clock;

    public async Task<SearchableSet> GetOrBuildAsync(Guid dataset, Guid? butinaJob, Func<Task<SearchableSet>> build, CancellationToken cancellationToken)
    {
        var key = (dataset, butinaJob);
        Lazy<Task<SearchableSet>> set;
        lock (_gate)
        {
            if (_entries.TryGetValue(key, out var entry))
            {
                set = entry.Set;
            }
            else
            {
                set = new Lazy<Task<SearchableSet>>(build);
                if (_entries.Count >= Math.Max(options.Value.CachedIndexes, 1))
                {
                    _entries.Remove(_entries.MinBy(e => e.Value.Used).Key);
                }
            }

            _entries[key] = (set, ++_clock);
        }

        try
        {
            return await set.Value.WaitAsync(cancellationToken);
        }
        catch (Exception) when (set.Value.IsFaulted || set.Value.IsCanceled)
        {
            lock (_gate)
            {
                if (_entries.TryGetValue(key, out var entry) && entry.Set == set)
                {
                    _entries.Remove(key);
                }
            }

            throw;
        }
    }
}
