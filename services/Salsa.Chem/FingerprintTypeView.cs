namespace Salsa.Chem;

/// <summary>A fingerprint type this service can hand out, where its bits come from, and the RDKit release (and call) that makes them here.</summary>
public sealed record FingerprintTypeView(string Name, int Bits, string Description, string? RdkitVersion = null, string? Options = null);
