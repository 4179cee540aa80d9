namespace Salsa.Store;

/// <summary>A named blob a job produced (assignments, a map, GeoJSON).</summary>
public sealed record Artifact(string Name, string ContentType, byte[] Data);
