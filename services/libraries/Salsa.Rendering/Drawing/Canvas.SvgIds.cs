using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace Salsa.Rendering.Drawing;

public sealed partial class Canvas
{
    /// <summary>
    /// Skia numbers an SVG document's clip paths (<c>cl_</c> and a hexadecimal number) from a count kept for the whole
    /// process, so the same drawing made twice in one process gave two documents. They are numbered
    /// again from 1, in the order they first appear, so a document depends on its drawing alone.
    /// </summary>
    private void NumberClipPathsFromOne()
    {
        var text = Encoding.UTF8.GetString(_svgBuffer.GetBuffer(), 0, checked((int)_svgBuffer.Length));
        if (!text.Contains("cl_", StringComparison.Ordinal))
        {
            return;
        }

        var numbers = new Dictionary<string, string>(StringComparer.Ordinal);
        var renumbered = ClipPathReference().Replace(text, match =>
        {
            var original = match.Groups["n"].Value;
            if (!numbers.TryGetValue(original, out var number))
            {
                number = (numbers.Count + 1).ToString(CultureInfo.InvariantCulture);
                numbers[original] = number;
            }

            return match.Groups["before"].Value + "cl_" + number;
        });
        var bytes = Encoding.UTF8.GetBytes(renumbered);
        _svgBuffer.SetLength(0);
        _svgBuffer.Write(bytes);
    }

    [GeneratedRegex("""(?<before>id="|url\(#)cl_(?<n>[0-9a-f]+)(?=["\)])""", RegexOptions.CultureInvariant)]
    private static partial Regex ClipPathReference();
}
