namespace Salsa.Contracts.Operations;

/// <summary>What a parameter's value must be (the JSON Schema type names).</summary>
#pragma warning disable CA1720 // The names are the JSON Schema types workflow authors read.
public enum ParameterKind
{
    String,
    Integer,
    Number,
    Boolean,
    StringList,
    NumberList,
}
