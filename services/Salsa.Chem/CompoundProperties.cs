namespace Salsa.Chem;

/// <summary>A page of an upload's compound properties: the columns the file had, and each compound's values.</summary>
public sealed record CompoundProperties(Guid DatasetId, int Count, IReadOnlyList<string> Columns, IReadOnlyList<CompoundPropertyRow> Compounds);

/// <summary>One compound's properties from its file.</summary>
public sealed record CompoundPropertyRow(string Id, IReadOnlyDictionary<string, string> Values);
