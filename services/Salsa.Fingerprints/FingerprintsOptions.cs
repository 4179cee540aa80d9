using System.ComponentModel.DataAnnotations;

namespace Salsa.Fingerprints;

/// <summary>Settings of the fingerprints service, from configuration section <c>Salsa:Fingerprints</c>.</summary>
public sealed class FingerprintsOptions
{
    public const string Section = "Salsa:Fingerprints";

    /// <summary>Hits one search may ask for; beyond this a search is refused (413 / RESOURCE_EXHAUSTED).</summary>
    [Range(1, int.MaxValue)]
    public int MaxSearchK { get; set; } = Contracts.Clients.SearchBounds.DefaultMaxK;

    /// <summary>Threads answering searches (each search is answered whole by one thread).</summary>
    [Range(1, int.MaxValue)]
    public int SearchThreads { get; set; } = Environment.ProcessorCount;

    /// <summary>Searches waiting for a thread; beyond this a search is refused (429 / RESOURCE_EXHAUSTED).</summary>
    [Range(1, int.MaxValue)]
    public int SearchQueueDepth { get; set; } = 64;

    /// <summary>Search indexes kept in memory (one per dataset, and per dataset and Butina job), least recently used dropped first.</summary>
    [Range(1, int.MaxValue)]
    public int CachedIndexes { get; set; } = 4;
}
