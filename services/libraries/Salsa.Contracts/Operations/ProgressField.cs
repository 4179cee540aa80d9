namespace Salsa.Contracts.Operations;

/// <summary>A field of a job's progress an operation reports, and what it is (<see cref="OperationSpec.Progress"/>).</summary>
public sealed record ProgressField(string Field, string Label);
