namespace Salsa.Rendering;

/// <summary>What a figure request may ask for beyond the configured limits: the smallest canvas a figure is legible on, a title's length, the structures one grid draws.</summary>
public static class FigureBounds
{
    public const int MinWidth = 200;

    public const int MinHeight = 150;

    public const int MaxTitleLength = 200;

    /// <summary>Structures in one molecule grid.</summary>
    public const int MaxMolecules = 200;
}
