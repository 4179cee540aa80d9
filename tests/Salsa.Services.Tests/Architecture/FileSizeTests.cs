namespace Salsa.Services.Tests.Architecture;

/// <summary>Rooms that fit in a head: no production C# file over 500 lines, no script of the console over 400.</summary>
public sealed class FileSizeTests
{
    private const int MaxCSharpLines = 500;

    private const int MaxScriptLines = 400;

    [Fact]
    public void ProductionFiles_FitTheirBound()
    {
        var over = Files()
            .Select(f => (f.Relative, f.Bound, Lines: File.ReadLines(f.File).Count()))
            .Where(f => f.Lines > f.Bound)
            .Select(f => $"{f.Relative}: {f.Lines} lines (at most {f.Bound})")
            .ToList();

        Assert.True(over.Count == 0, "Split these by responsibility:\n" + string.Join('\n', over));
    }

    private static IEnumerable<(string File, string Relative, int Bound)> Files() =>
        ProductionSources.Files(".cs").Select(f => (f.File, f.Relative, MaxCSharpLines))
            .Concat(ProductionSources.Files(".js").Where(f => f.Relative.Contains("/wwwroot/", StringComparison.Ordinal)).Select(f => (f.File, f.Relative, MaxScriptLines)));
}
