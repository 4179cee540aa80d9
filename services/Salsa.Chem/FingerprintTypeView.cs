namespace Salsa.Chem;

/// <summary>A fingerprint type this service can hand out, and where its bits come from.</summary>
public sealed record FingerprintTypeView(string Name, int Bits, string Description);
