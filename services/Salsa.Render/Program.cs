using Salsa.Hosting.Host;
using Salsa.Render;

return await SalsaServiceHost.RunAsync<RenderService>(args);
