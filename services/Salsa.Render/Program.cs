using Salsa.Render;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<RenderService>(args);
