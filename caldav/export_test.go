package caldav

// RenderVersion is renderVersion, for the tests outside the package.
const RenderVersion = renderVersion
