using Salsa.Store;

namespace Salsa.Chem;

/// <summary>An upload's compounds dataset, and the compounds left out of it.</summary>
public sealed record CompoundUpload(DatasetInfo Compounds, IReadOnlyList<RefusedCompound> Refused);

/// <summary>A compound of an upload RDKit could not read: where it was, and RDKit's reason.</summary>
public sealed record RefusedCompound(int Line, string Id, string Smiles, string Reason);
