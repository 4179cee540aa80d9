namespace Salsa.Chemistry;

/// <summary>A molecule RDKit could not read, or a request it cannot serve.</summary>
public sealed class MoleculeException(string message) : ArgumentException(message);
