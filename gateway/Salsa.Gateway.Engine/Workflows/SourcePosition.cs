using System.Globalization;

namespace Salsa.Gateway.Workflows;

/// <summary>A place in a workflow's YAML text (1-based), for errors a person can act on.</summary>
public readonly record struct SourcePosition(int Line, int Column)
{
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Line}:{Column}");
}
