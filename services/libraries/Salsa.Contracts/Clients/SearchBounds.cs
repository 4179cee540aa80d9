namespace Salsa.Contracts.Clients;

/// <summary>What a similarity search (<c>salsa.fingerprints.v1.Fingerprints/Search</c>) may ask for.</summary>
public static class SearchBounds
{
    /// <summary>Hits one search returns at most, unless the service's <c>Salsa:Fingerprints:MaxSearchK</c> says otherwise.</summary>
    public const int DefaultMaxK = 1000;
}
